"""Acknowledged means durable: `hippograph serve` killed with SIGKILL under a mixed write load.

On the embedded default (ArcadeDB inside the serve process) the load is
three clients at once: ``addMemory`` for one user, sync ``memorize`` of four
messages for the same user, and ``addMemory`` then ``deleteMemory`` for
another. At a random moment, once each kind of write was acknowledged in
the round, the process is killed (no shutdown of any kind), restarted on
its data, and checked:

* every write whose answer reached a client is there (memories by id,
  messages by id, each message in a MemUnit), and every acknowledged
  delete stays deleted;
* nothing is half-written: no extracted memory without its sources, no
  MemUnit without its messages.

Ten kills in one test; the seed of the kill times is in the failure message.
On a Neo4j run the server is not inside serve, so the kill proves nothing
there; the worker killed mid-job is tests/jobs/test_memorize_worker_kill.py.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any

import httpx
import pytest

from graph.embedded import free_port
from tests.api.conftest import ADD_MEMORY
from tests.graphql import data_of, payload
from tests.graphs import TestDatabase

# Eleven starts of `hippograph serve` as a child process: 159 s on two
# idle cores, and over the suite's 300 s beside the rest of `make test`.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

HIPPOGRAPH = Path(sys.executable).parent / "hippograph"
KILLS = 10

DELETE = """
mutation($id: ID!) {
  deleteMemory(input: {id: $id, hard: true}) { __typename ... on Error { message } }
}"""
MEMORIZE = """
mutation($input: MemorizeInput!) {
  memorize(input: $input) {
    __typename ... on Memorized { messages { id } counts { memunits } } ... on Error { message }
  }
}"""
MEMORIES = """
query($user: ID!, $after: String) {
  memories(userId: $user, first: 100, after: $after, filter: {includeConsolidated: true}) {
    edges { node { id source derivedFrom { __typename id } } }
    pageInfo { hasNextPage endCursor }
  }
}"""


@dataclass
class Acknowledged:
    """Every write whose answer reached a client (the threads append; lists are thread-safe)."""

    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    def counts(self) -> tuple[int, int, int]:
        """How many adds, deletes and memorized messages were acknowledged so far."""
        return len(self.added), len(self.deleted), len(self.messages)


def _wait_for_writes(acked: Acknowledged, before: tuple[int, int, int], context: str) -> None:
    """Wait until every kind of write was acknowledged once more than ``before``."""
    deadline = time.monotonic() + 120
    while not all(now > then for now, then in zip(acked.counts(), before, strict=True)):
        assert time.monotonic() < deadline, f"{context}: the load wrote too little: {acked}"
        time.sleep(0.05)


class Api:
    """GraphQL over HTTP to one serve process, with the admin key."""

    def __init__(self, port: int, key: str) -> None:
        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )

    def data(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The answer's data; an error answer fails the test (a cut connection raises)."""
        return data_of(self.client.post("/graphql", json=payload(query, variables)))

    def close(self) -> None:
        """Close its connections."""
        self.client.close()


def _start(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "HIPPOGRAPH_GRAPH__DATA_DIR": str(data_dir),
        "HIPPOGRAPH_API__PORT": str(port),
        # the load is one client's; its rate is not what this tests
        "HIPPOGRAPH_API__RATE_LIMIT_PER_S": "100000",
    }
    env.pop("HIPPOGRAPH_API__ADMIN_KEY", None)
    log = (data_dir.parent / f"serve-{port}-{time.monotonic_ns()}.log").open("wb")
    with log:
        return subprocess.Popen(
            [str(HIPPOGRAPH), "serve"],
            env=env,
            cwd=data_dir.parent,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def _answering(process: subprocess.Popen[bytes], port: int, key_file: Path) -> Api:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert process.poll() is None, "serve exited while starting (see its log in tmp_path)"
        if key_file.exists():
            api = Api(port, key_file.read_text().strip())
            try:
                if api.data("{ viewer { admin } }", {})["viewer"]["admin"]:
                    return api
            except httpx.HTTPError:
                pass
            api.close()
        time.sleep(0.1)
    pytest.fail("serve did not answer in time")


def _loop(stop: threading.Event, step: Callable[[int], None]) -> None:
    """Run ``step`` until told to stop or until the server goes away mid-request."""
    numbers = count()
    while not stop.is_set():
        try:
            step(next(numbers))
        except httpx.HTTPError:
            return  # killed mid-request: this write was never acknowledged


def _load(
    api: Api, round_no: int, session_id: str, acked: Acknowledged
) -> Iterator[Callable[[int], None]]:
    def add(n: int) -> None:
        data = api.data(
            ADD_MEMORY,
            {
                "input": {
                    "userId": "ann",
                    "content": f"Ann's note {round_no}-{n}: bought {n} apples",
                }
            },
        )
        acked.added.append(data["addMemory"]["memory"]["id"])

    def add_then_delete(n: int) -> None:
        data = api.data(
            ADD_MEMORY, {"input": {"userId": "bob", "content": f"Bob's scratch {round_no}-{n}"}}
        )
        memory_id = data["addMemory"]["memory"]["id"]
        api.data(DELETE, {"id": memory_id})
        acked.deleted.append(memory_id)

    def memorize(n: int) -> None:
        messages = [
            {
                "speaker": speaker,
                "content": text,
                "clientId": f"r{round_no}-{n}-{i}",
                "ts": f"2024-{1 + round_no % 12:02d}-{1 + n % 28:02d}T10:{i:02d}:00Z",
            }
            for i, (speaker, text) in enumerate(
                [
                    (
                        "Ann",
                        f"I moved to Porto in spring and I love the tiles there ({round_no}.{n}).",
                    ),
                    ("Bob", f"Did you find a flat near the river, Ann? ({round_no}.{n})"),
                    (
                        "Ann",
                        f"Yes, I rent a small flat and I walk my dog Rex daily ({round_no}.{n}).",
                    ),
                    (
                        "Bob",
                        f"My favourite food is grilled sardines, we should go ({round_no}.{n}).",
                    ),
                ]
            )
        ]
        data = api.data(
            MEMORIZE,
            {
                "input": {
                    "userIds": ["ann"],
                    "sessionId": session_id,
                    "messages": messages,
                    "async": False,
                }
            },
        )
        acked.messages.extend(m["id"] for m in data["memorize"]["messages"])

    return iter((add, add_then_delete, memorize))


def _all_memories(api: Api, user_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    after = None
    while True:
        page = api.data(MEMORIES, {"user": user_id, "after": after})["memories"]
        found.extend(edge["node"] for edge in page["edges"])
        if not page["pageInfo"]["hasNextPage"]:
            return found
        after = page["pageInfo"]["endCursor"]


def _in_memunits(api: Api, message_ids: list[str]) -> set[str]:
    """Those of ``message_ids`` from which a MemUnit derives."""
    found: set[str] = set()
    for start in range(0, len(message_ids), 25):
        chunk = message_ids[start : start + 25]
        fields = " ".join(
            f'm{i}: provenance(id: "{m}", depth: 1, direction: UP) {{ nodes {{ __typename }} }}'
            for i, m in enumerate(chunk)
        )
        data = api.data(f"{{ {fields} }}", {})
        found.update(
            m
            for i, m in enumerate(chunk)
            if data[f"m{i}"] and any(n["__typename"] == "MemUnit" for n in data[f"m{i}"]["nodes"])
        )
    return found


def _check(api: Api, acked: Acknowledged, context: str) -> tuple[int, int]:
    """Assert the acknowledged writes and no half-written records; (memories, MemUnits) seen."""
    ann = _all_memories(api, "ann")
    present = {m["id"] for m in ann}
    lost = [i for i in acked.added if i not in present]
    assert not lost, f"{context}: acknowledged addMemory lost: {lost[:5]}"
    bob = {m["id"] for m in _all_memories(api, "bob")}
    back = [i for i in acked.deleted if i in bob]
    assert not back, f"{context}: acknowledged deletes came back: {back[:5]}"
    units: set[str] = set()
    for memory in ann:
        if memory["source"] != "EXTRACTION":
            continue
        kinds = {n["__typename"] for n in memory["derivedFrom"]}
        assert "MemUnit" in kinds, f"{context}: {memory['id']} has no MemUnit: {memory}"
        units.update(n["id"] for n in memory["derivedFrom"] if n["__typename"] == "MemUnit")
    for unit_id in units:
        unit = api.data("query($id: ID!) { memUnit(id: $id) { messages { id } } }", {"id": unit_id})
        assert unit["memUnit"]["messages"], f"{context}: MemUnit {unit_id} without its messages"
    missing = sorted(set(acked.messages) - _in_memunits(api, acked.messages))
    assert not missing, f"{context}: acknowledged messages not in a MemUnit: {missing[:5]}"
    return len(ann), len(units)


def test_sigkill_under_load_loses_no_acknowledged_write(
    graph_db: TestDatabase, tmp_path: Path
) -> None:
    if graph_db.server != "arcadedb":
        pytest.skip("the embedded store lives in serve's process only on the ArcadeDB run")
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    data_dir = tmp_path / "data"
    port = free_port()
    acked = Acknowledged()
    process = _start(data_dir, port)
    api = _answering(process, port, data_dir / "admin.key")
    for user_id, name in (("ann", "Ann"), ("bob", "Bob")):
        api.data(
            "mutation($u: ID!, $n: String!) { createUser(input: {id: $u, name: $n}) { __typename } }",
            {"u": user_id, "n": name},
        )
    session = api.data(
        'mutation { createSession(input: {userId: "ann", title: "Porto"}) '
        "{ ... on SessionCreated { session { id } } } }",
        {},
    )["createSession"]["session"]["id"]
    try:
        for round_no in range(KILLS):
            stop = threading.Event()
            threads = [
                threading.Thread(target=_loop, args=(stop, step), daemon=True)
                for step in _load(api, round_no, session, acked)
            ]
            for thread in threads:
                thread.start()
            # The kill lands at a random moment once each kind of write of
            # this round was acknowledged (an empty round would prove nothing;
            # a fixed delay left rounds empty on a loaded machine).
            _wait_for_writes(acked, before=acked.counts(), context=f"round {round_no + 1}")
            time.sleep(rng.uniform(0.0, 1.5))
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
            stop.set()
            for thread in threads:
                thread.join(timeout=30)
            api.close()
            process = _start(data_dir, port)
            api = _answering(process, port, data_dir / "admin.key")
            _check(api, acked, f"after kill {round_no + 1} (seed {seed})")
    finally:
        api.close()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
