"""``hippograph reindex --model``: every vector made again with another model, resumable.

Re-embedding to another model and back must give the vectors memorize made
with the first (each vector is rebuilt from what it was made of), a run
killed between pages must finish on the next run with each node written
once, and until it does no process may start on the half-embedded graph.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from graph.embedding_meta import VectorModel
from graph.store import GraphStore
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.cli import main
from hippograph.errors import ConfigError
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memorize import MemorizeRequest
from hippograph.services.messages import MessageInput
from hippograph.services.reindex import ReindexService
from hippograph.settings import EmbeddingSettings, MemorizeSettings, Settings
from tests.cli.conftest import TALK
from tests.conftest import MODEL, MODEL_CACHE
from tests.graphs import TestDatabase

MINILM = "all-minilm-l6-v2"
VECTORS = "MATCH (n) WHERE n:Memory OR n:MemUnit RETURN n.id AS id, n.embedding AS vector"


@pytest.fixture
def settings(graph_db: TestDatabase, tmp_path: Path) -> Settings:
    """The runtime's settings, without the reflect run a memorize queues (it would add a
    node while a page is being counted)."""
    return Settings(
        graph=graph_db.settings(tmp_path), memorize=MemorizeSettings(reflect_after_write=False)
    )


@pytest.fixture(scope="module")
async def minilm() -> AsyncIterator[SentenceTransformerEmbedder]:
    """all-MiniLM-L6-v2, the other model the graph is re-embedded with."""
    embedder = await SentenceTransformerEmbedder.load(EmbeddingSettings(model=MINILM))
    try:
        yield embedder
    finally:
        await embedder.close()


async def _vectors(store: GraphStore) -> dict[str, list[float]]:
    rows = await store.graph.query(VECTORS)
    return {str(r["id"]): [float(x) for x in r["vector"]] for r in rows}


def _same(a: dict[str, list[float]], b: dict[str, list[float]]) -> bool:
    """Whether both hold the same nodes with the same vectors (float32 rounding aside)."""
    return a.keys() == b.keys() and all(
        max(abs(x - y) for x, y in zip(a[k], b[k], strict=True)) < 1e-5 for k in a
    )


async def _memorize(runtime: Runtime, turns: list[tuple[str, str]]) -> None:
    users = runtime.services.users
    await users.create_user(SETTINGS_ADMIN, "alice", "Alice")
    session = await users.create_session(SETTINGS_ADMIN, "alice", "trip")
    messages = tuple(
        MessageInput(speaker=s, content=f"{c} ({i})") for i, (s, c) in enumerate(turns)
    )
    request = MemorizeRequest(user_ids=("alice",), session_id=session.id, messages=messages)
    await runtime.services.memorize.memorize(SETTINGS_ADMIN, request)


class Crash(Exception):
    """What a kill would have been, after some pages were committed."""


async def test_a_killed_reembedding_resumes_writes_each_node_once_and_restores_the_vectors(
    runtime: Runtime, minilm: SentenceTransformerEmbedder
) -> None:
    await _memorize(runtime, TALK * 3)
    store = runtime.connection.store
    made = await _vectors(store)
    assert len(made) > 10
    target = VectorModel(MINILM, minilm.dimensions, minilm.precision)
    await store.begin_reindex(target, "run-1")
    service = ReindexService(store.reindex, minilm, page=3)
    assert sum(await service.left("run-1")) == len(made)
    written: list[int] = []

    def crash_after_two_pages(label: str, count: int) -> None:
        written.append(count)
        if len(written) == 2:
            raise Crash

    with pytest.raises(Crash):
        await service.run("run-1", crash_after_two_pages)
    # Half one model, half the other: nothing may start on it.
    for model in (MODEL, MINILM):
        finish = f"reindex --model {MINILM} --precision {minilm.precision}` to finish"
        with pytest.raises(ConfigError, match=finish):
            await store.setup(model=model, dimensions=384)
    left = sum(await service.left("run-1"))
    assert left == len(made) - sum(written)
    resumed = await service.run("run-1")
    assert resumed.memories + resumed.units == left  # none twice, none missed
    assert sum(await service.left("run-1")) == 0
    await store.finish_reindex("run-1", minilm.dimensions)
    assert await store.setup(model=MINILM, dimensions=384)
    reembedded = await _vectors(store)
    assert reembedded.keys() == made.keys()
    assert all(
        math.fsum(x * y for x, y in zip(made[k], reembedded[k], strict=True)) < 0.99 for k in made
    )
    # And back: the vectors memorize made with the first model, node for node.
    back = ReindexService(store.reindex, runtime.embedder)
    await store.begin_reindex(VectorModel(MODEL, 384, runtime.embedder.precision), "run-2")
    assert await back.run("run-2")
    await store.finish_reindex("run-2", 384)
    assert _same(made, await _vectors(store))


@pytest.mark.usefixtures("cli_environment")
def test_reindex_with_a_model_reembeds_and_a_start_with_the_old_model_is_refused(
    capsys: pytest.CaptureFixture[str],
    embedder: SentenceTransformerEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HIPPOGRAPH_MEMORIZE__REFLECT_AFTER_WRITE", "false")
    settings = Settings()

    async def memorize_then(work: str) -> dict[str, list[float]]:
        runtime = await Runtime.start(settings, embedder=embedder)
        try:
            if work == "memorize":
                await _memorize(runtime, TALK)
            return await _vectors(runtime.connection.store)
        finally:
            await runtime.stop()

    made = asyncio.run(memorize_then("memorize"))
    capsys.readouterr()
    assert main(["reindex", "--model", MINILM]) == 0
    out = capsys.readouterr().out
    assert f"re-embedded {sum(1 for k in made if k.startswith('mem_'))} memories" in out
    assert f"HIPPOGRAPH_EMBEDDING__MODEL={MINILM}" in out
    with pytest.raises(ConfigError, match=f"come from {MINILM}.*reindex --model {MODEL}`"):
        asyncio.run(memorize_then("read"))
    assert main(["reindex", "--model", MINILM]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["reindex", "--model", MODEL]) == 0
    assert _same(made, asyncio.run(memorize_then("read")))


@pytest.mark.slow  # three processes with an embedded ArcadeDB each, one killed (20 s)
@pytest.mark.only_on("arcadedb", "kills the process that holds the embedded graph")
def test_a_reindex_killed_by_sigkill_finishes_on_the_next_run(tmp_path: Path) -> None:
    data = tmp_path / "data"
    talk = tmp_path / "talk.jsonl"
    turns = [{"speaker": s, "content": f"{c} ({i})"} for i in range(12) for s, c in TALK]
    line = {"user_id": "alice", "user_name": "Alice", "messages": turns}
    talk.write_text(json.dumps(line) + "\n")
    env = {
        **os.environ,
        "HIPPOGRAPH_GRAPH__DATA_DIR": str(data),
        "HIPPOGRAPH_EMBEDDING__CACHE_DIR": str(MODEL_CACHE),
        "HIPPOGRAPH_LOG_LEVEL": "warning",
    }
    command = [sys.executable, "-m", "hippograph.cli"]
    subprocess.run([*command, "import", str(talk)], env=env, check=True, capture_output=True)
    done = total = 0
    with subprocess.Popen(
        [*command, "reindex", "--model", MINILM, "--page", "1"],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    ) as first:
        assert first.stderr is not None
        deadline = time.monotonic() + 120
        while done < 5 and time.monotonic() < deadline:
            # tqdm redraws with "\r": read what there is and look for "n/total".
            chunk = os.read(first.stderr.fileno(), 4096).decode(errors="replace")
            assert chunk, "reindex ended before it could be killed"
            counts = re.findall(r"memories: .*?(\d+)/(\d+)", chunk)
            if counts:
                done, total = int(counts[-1][0]), int(counts[-1][1])
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    assert done >= 5
    refused = subprocess.run(
        [*command, "init"],
        env={**env, "HIPPOGRAPH_EMBEDDING__MODEL": MINILM},
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2
    # What the refusal says to run, run as it says.
    finish = ["reindex", "--model", MINILM, "--precision", "float32"]
    assert f"run `hippograph {' '.join(finish)}` to finish it" in refused.stderr
    second = subprocess.run([*command, *finish], env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    resumed = re.search(r"resuming the re-embedding .*: (\d+) memories", second.stdout)
    written = re.search(r"re-embedded (\d+) memories", second.stdout)
    assert resumed
    assert written
    # what the killed run committed stays written; the rest is written now, once
    assert int(resumed.group(1)) <= total - done
    assert int(written.group(1)) == int(resumed.group(1))
    again = subprocess.run(
        [*command, "init"],
        env={**env, "HIPPOGRAPH_EMBEDDING__MODEL": MINILM},
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
