"""Memorize throughput: LoCoMo conversations through the whole pipeline into the graph.

Every turn of the dev subset goes in as a message, one memorize call per
LoCoMo session (synchronous, offline extractor), exactly as an agent would
send them. Reported: messages/s end to end, and where the time goes (message
append, embedding, extraction, the one write), measured by timing each port
the memorize service is built on.

The conversations go in twice, under other user ids the second time: the
first pass runs on a graph server that has just started, whose JIT compiler
spends several core-seconds compiling the write path while the pass runs
(measured: 7 of 25 core-seconds); the second is the steady state of a
server that has been up for a while. Both are reported.

    python -m bench.ingest [--data FILE] [--graph arcadedb|neo4j-5.26|neo4j-2026] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bench import graphs
from bench.common import LOCOMO, dev_file, machine, report_cli
from bench.graphs import BenchGraph, open_graph
from hippograph.clock import utc_now
from hippograph.extraction.schema import Extraction, ExtractionRequest
from hippograph.fuzzing import FuzzRequest, FuzzText
from hippograph.importers.locomo import LocomoSession, load_locomo
from hippograph.models import IngestBatch, IngestCounts, Message
from hippograph.ports import LLM, Embedder
from hippograph.reflection import ReflectionRequest, ReflectionSummary
from hippograph.runtime import Runtime, build_llm
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memorize import IngestStore, MemorizeRequest, MemorizeService
from hippograph.services.said_before import SaidBefore
from hippograph.settings import Settings

SPENT: dict[str, float] = defaultdict(float)


@contextlib.contextmanager
def spending(what: str) -> Iterator[None]:
    """Add the seconds the block takes to ``SPENT[what]``, whatever happens in it."""
    started = time.perf_counter()
    try:
        yield
    finally:
        SPENT[what] += time.perf_counter() - started


class TimedEmbedder:
    """The embedder, with the seconds it takes added to ``SPENT``."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.model_name = inner.model_name
        self.dimensions = inner.dimensions
        self.precision = inner.precision
        self.scale = inner.scale

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        SPENT["embedded_texts"] += len(texts)
        with spending("embed"):
            return await self._inner.embed(texts)

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._inner.embed_queries(texts)


class TimedLLM:
    """The extractor, timed."""

    def __init__(self, inner: LLM) -> None:
        self._inner = inner
        self.name = inner.name

    async def extract(
        self, request: ExtractionRequest, vectors: Sequence[Sequence[float]] | None = None
    ) -> Extraction:
        with spending("extract"):
            return await self._inner.extract(request, vectors)

    async def reflect(self, request: ReflectionRequest) -> ReflectionSummary:
        with spending("reflect"):
            return await self._inner.reflect(request)

    async def fuzz(self, request: FuzzRequest) -> FuzzText:
        return await self._inner.fuzz(request)


class TimedIngest:
    """The graph side of memorize, timed per call."""

    def __init__(self, inner: IngestStore) -> None:
        self._inner = inner

    async def unprocessed(self, session_id: str, limit: int) -> list[Message]:
        with spending("read"):
            return await self._inner.unprocessed(session_id, limit)

    async def previous(self, session_id: str, seq: int) -> Message | None:
        with spending("read"):
            return await self._inner.previous(session_id, seq)

    async def profiles(self, user_ids: Sequence[str], limit: int) -> dict[str, dict[str, str]]:
        with spending("read"):
            return await self._inner.profiles(user_ids, limit)

    async def write(self, batch: IngestBatch) -> IngestCounts:
        with spending("write"):
            return await self._inner.write(batch)


def _median(passes: list[dict[str, Any]]) -> dict[str, Any]:
    """The pass of median throughput, with every pass's messages/s beside it."""
    ordered = sorted(passes, key=lambda p: p["messages_per_s"])
    return ordered[len(ordered) // 2] | {
        "all_messages_per_s": [p["messages_per_s"] for p in passes]
    }


async def run(
    data: Path, concurrency: int, graph: BenchGraph, alternate: int = 1
) -> dict[str, Any]:
    """Ingest every conversation of ``data``; the figures as a dict."""
    conversations = load_locomo(dev_file(data))
    settings = Settings(graph=graph.settings)
    runtime = await Runtime.start(settings)
    try:
        store = runtime.connection.store
        services = runtime.services

        def memorize_service(entities: bool) -> MemorizeService:
            return MemorizeService(
                services.messages,
                services.users,
                store.users,
                TimedIngest(store.ingest),
                TimedEmbedder(runtime.embedder),
                TimedLLM(build_llm(settings)),
                services.jobs,
                utc_now,
                settings.memorize.model_copy(update={"entities": entities}),
                settings.limits,
                # as the service is wired: a repeat of an earlier session is looked up
                _said_before=SaidBefore(store.search, store.memories, utc_now, settings.search),
            )

        memorize = memorize_service(True)
        texts = [
            f'{t.speaker} said, "{t.text}"'
            for c in conversations
            for s in c.sessions
            for t in s.turns
        ]
        await runtime.embedder.embed(texts[:8])  # the first call pays for lazy set-up
        ceiling_started = time.perf_counter()
        await runtime.embedder.embed(texts)
        ceiling = len(texts) / (time.perf_counter() - ceiling_started)
        gate = asyncio.Semaphore(concurrency)

        async def one(user_id: str, locomo_session: LocomoSession, totals: dict[str, int]) -> None:
            async with gate:
                session = await services.users.create_session(
                    SETTINGS_ADMIN, user_id, f"session {locomo_session.number}"
                )
                request = MemorizeRequest(
                    user_ids=(user_id,),
                    session_id=session.id,
                    messages=tuple(locomo_session.message_inputs()),
                    run_async=False,
                )
                outcome = await memorize.memorize(SETTINGS_ADMIN, request)
                assert outcome.counts is not None
                totals["messages"] += len(outcome.added.created_ids)
                totals["memunits"] += outcome.counts.memunits
                totals["memories"] += outcome.counts.memories
                totals["sessions"] += 1

        async def ingest(prefix: str) -> dict[str, Any]:
            nonlocal memorize
            memorize = memorize_service(entities=not prefix.startswith("off"))
            started_cpu = time.process_time()
            SPENT.clear()
            totals: dict[str, int] = defaultdict(int)
            started = time.perf_counter()
            for conversation in conversations:
                user_id = prefix + conversation.sample_id
                await services.users.create_user(SETTINGS_ADMIN, user_id, conversation.sample_id)
            # Sessions are independent requests; sent side by side (as concurrent
            # clients would), the embedder merges their texts into larger batches
            # and graph writes overlap encoding.
            await asyncio.gather(
                *(one(prefix + c.sample_id, s, totals) for c in conversations for s in c.sessions)
            )
            elapsed = time.perf_counter() - started
            cpu = time.process_time() - started_cpu
            texts = int(SPENT["embedded_texts"])
            return {
                **totals,
                "seconds": round(elapsed, 2),
                "messages_per_s": round(totals["messages"] / elapsed, 1),
                # this process's CPU (embedding, extraction, the driver), not the server's
                "process_cpu_s": round(cpu, 2),
                "embedded_texts": texts,
                # The model runs one batch at a time: this is the wall-clock
                # time it needs for these texts at its measured rate alone.
                "model_busy_s": round(texts / ceiling, 2),
                # Calls overlap (several sessions in flight), so these sums
                # exceed the wall-clock time; they rank the ports, no more.
                "port_time_s_summed_over_concurrent_calls": {
                    "embed": round(SPENT["embed"], 2),
                    "extract": round(SPENT["extract"], 2),
                    "graph_write": round(SPENT["write"], 2),
                    "graph_read": round(SPENT["read"], 2),
                },
            }

        cold = await ingest("")
        warm = await ingest("again-")
        # Entity extraction and its MENTIONS edges, off then on, alternately on
        # the same warm server: the difference is what entities cost memorize.
        # On a shared machine one pair is noise; the medians of several are not.
        offs, ons = [], []
        for round_ in range(alternate):
            offs.append(await ingest(f"off{round_}-"))
            ons.append(await ingest(f"on{round_}-"))
        off, on = _median(offs), _median(ons)
    finally:
        await runtime.stop()
    return {
        "data": str(data),
        "conversations": len(conversations),
        "concurrency": concurrency,
        "graph": graph.described(),
        "embedding": " ".join(
            str(getattr(runtime.embedder, part, "?")) for part in ("runtime", "precision")
        ),
        "embedding_only_texts_per_s": round(ceiling, 1),
        "first_pass_after_start": cold,
        "steady_state": warm,
        "steady_state_entities_off": off,
        "steady_state_entities_on_again": on,
        "alternations": alternate,
        "machine": machine(),
    }


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--concurrency", type=int, default=4, help="sessions in flight at once")
    parser.add_argument(
        "--alternate",
        type=int,
        default=1,
        help="passes with entities off and on, alternately, after the two warm-up passes "
        "(the median of each is reported)",
    )
    graphs.add_argument(parser)
    report_cli(parser, measure, show)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """The passes over ``--data``, on a new graph of its own."""
    directory = Path(tempfile.mkdtemp(prefix="hippograph-ingest-"))
    with open_graph(args.graph, directory) as graph:
        return asyncio.run(run(args.data, args.concurrency, graph, args.alternate))


def show(report: dict[str, Any], args: argparse.Namespace) -> None:
    """The model's own rate, then each pass and the time in each port."""
    graphs.show_graph(report)
    print(
        f"embedding: {report['embedding']}, the model alone "
        f"{report['embedding_only_texts_per_s']} texts/s"
    )
    for name in (
        "first_pass_after_start",
        "steady_state",
        "steady_state_entities_off",
        "steady_state_entities_on_again",
    ):
        part = report[name]
        print(
            f"{name.replace('_', ' ')}: {part['messages']} messages in {part['seconds']} s: "
            f"{part['messages_per_s']} messages/s "
            f"({part['memunits']} MemUnits, {part['memories']} memories)"
        )
        print(
            f"  the model alone needs {part['model_busy_s']} s for its "
            f"{part['embedded_texts']} texts"
        )
        print("  time in each port, summed over concurrent calls (they overlap):")
        for what, seconds in part["port_time_s_summed_over_concurrent_calls"].items():
            print(f"    {what:12} {seconds:6.2f} s")


if __name__ == "__main__":
    main()
