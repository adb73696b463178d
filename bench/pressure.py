"""Search while another client imports: does background work starve interactive reads?

On ``hippograph serve`` (``--graph``: the embedded ArcadeDB with jobs inside
serve, or a Neo4j release with a ``hippograph worker`` process and Redis,
see :mod:`bench.stack`):

1. a reader's user gets the first ``--seed-turns`` LoCoMo dev turns;
2. **idle**: the reader runs ``--searches`` HYBRID top-50 searches, one at
   a time, ``--rate`` a second: latency p50/p95;
3. **import alone**: a writer imports ``--messages`` turns (the dev turns,
   repeated with a pass number) over HTTP as ``memorize(async: true)``
   calls of ``--chunk`` messages, each waited for: messages/s;
4. **together**: the writer imports the same number of new turns while the
   reader searches as in 2 until the import is done: search p50/p95, the
   share over 100 ms, and the import's messages/s.

The figures of issue 32: search p95 during the import ≤ 2× idle, and the
import's rate under the searches not below 80% of what the code before
gave under the same searches (run the bench on both: a worktree of the old
commit with ``PYTHONPATH``).

    python -m bench.pressure [--graph arcadedb|neo4j-5.26|neo4j-2026] [--messages 1500] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import time
from typing import Any

import httpx

from bench import graphs
from bench.common import (
    ADMIN_HEADERS,
    Report,
    locomo_questions,
    locomo_samples,
    machine,
    percentiles,
    report_cli,
)
from bench.stack import JOB, MEMORIZE, SEARCH, SESSION, USER, graphql_data, running


def dev_turns() -> list[tuple[str, str]]:
    """Every LoCoMo dev turn as (speaker, text), in conversation order."""
    turns: list[tuple[str, str]] = []
    for sample in locomo_samples():
        conversation = sample["conversation"]
        for key in sorted(
            (k for k in conversation if k.startswith("session_") and not k.endswith("date_time")),
            key=lambda k: int(k.split("_")[1]),
        ):
            turns.extend((t["speaker"], t["text"]) for t in conversation[key])
    return turns


class Api:
    """GraphQL over HTTP with the admin key (``http`` carries it); an error answer raises."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def data(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The answer's data."""
        return await graphql_data(self.http, query, variables)

    async def user(self, user_id: str) -> str:
        """Create ``user_id`` with a session; the session's id."""
        await self.data(USER, {"id": user_id, "name": user_id})
        data = await self.data(SESSION, {"u": user_id, "title": "pressure"})
        return str(data["createSession"]["session"]["id"])

    async def memorize(self, user_id: str, session: str, batch: list[dict[str, str]]) -> None:
        """One ``memorize(async: true)`` call, waited for until its job is done."""
        variables = {"u": user_id, "s": session, "m": batch, "async": True}
        answer = (await self.data(MEMORIZE, variables))["memorize"]
        if answer["__typename"] != "Memorized":
            raise RuntimeError(answer)
        job = answer["job"]
        while job is not None:
            state = (await self.data(JOB, {"id": job["id"]}))["job"]
            if state["status"] == "SUCCEEDED":
                return
            if state["status"] == "FAILED":
                raise RuntimeError(state)
            await asyncio.sleep(0.1)


def _batches(turns: list[tuple[str, str]], tag: str, chunk: int) -> list[list[dict[str, str]]]:
    messages = [
        {"speaker": speaker, "content": f"{text} ({tag})", "clientId": f"{tag}-{i}"}
        for i, (speaker, text) in enumerate(turns)
    ]
    return [messages[i : i + chunk] for i in range(0, len(messages), chunk)]


async def _import(api: Api, session: str, batches: list[list[dict[str, str]]]) -> float:
    """Import ``batches`` for the writer; messages per second."""
    started = time.perf_counter()
    for batch in batches:
        await api.memorize("writer", session, batch)
    return sum(len(b) for b in batches) / (time.perf_counter() - started)


async def _searches(
    api: Api, questions: list[str], count: int | None, stop: asyncio.Event, rate: float
) -> list[float]:
    """Latencies (ms) of searches, ``rate`` a second: ``count`` of them, or until ``stop``.

    One at a time, each started on schedule (or at once, if the one before
    ran late), so the reader asks the same of the service whatever else it
    does, and the import's rate is compared under the same search load.
    """
    samples: list[float] = []
    due = time.perf_counter()
    for question in itertools.cycle(questions):
        if stop.is_set() or (count is not None and len(samples) >= count):
            return samples
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        started = time.perf_counter()
        await api.data(SEARCH, {"u": "reader", "q": question, "topK": 50, "touch": False})
        samples.append((time.perf_counter() - started) * 1000)
        due = max(due + 1 / rate, time.perf_counter())
    return samples


def _summary(samples: list[float]) -> dict[str, Any]:
    figures = percentiles(samples)
    return figures | {"over_100ms": round(sum(s > 100 for s in samples) / len(samples), 3)}


async def run(
    graph: str, messages: int, chunk: int, seed_turns: int, searches: int, rate: float
) -> dict[str, Any]:
    """The three phases on a fresh service; the report."""
    turns = dev_turns()
    questions = locomo_questions()
    wanted = list(itertools.islice(itertools.cycle(turns), messages))
    async with (
        running(graph) as stack,
        httpx.AsyncClient(base_url=stack.url, headers=ADMIN_HEADERS, timeout=300) as http,
    ):
        api = Api(http)
        reader, writer = await api.user("reader"), await api.user("writer")
        for batch in _batches(turns[:seed_turns], "seed", chunk):
            await api.memorize("reader", reader, batch)
        await _searches(api, questions, 20, asyncio.Event(), rate)  # warm-up
        idle = await _searches(api, questions, searches, asyncio.Event(), rate)
        alone = await _import(api, writer, _batches(wanted, "alone", chunk))
        stop = asyncio.Event()
        reading = asyncio.create_task(_searches(api, questions, None, stop, rate))
        try:
            together = await _import(api, writer, _batches(wanted, "together", chunk))
        finally:
            stop.set()
        during = await reading
    idle_figures, during_figures = _summary(idle), _summary(during)
    return {
        "graph": graph,
        "messages": messages,
        "chunk": chunk,
        "searches_per_s": rate,
        "search_idle_ms": idle_figures,
        "search_during_import_ms": during_figures,
        "p95_ratio": round(during_figures["p95"] / idle_figures["p95"], 2),
        "import_alone_msg_s": round(alone, 1),
        "import_with_searches_msg_s": round(together, 1),
        "import_ratio": round(together / alone, 2),
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    graphs.add_argument(parser)
    parser.add_argument("--messages", type=int, default=1500)
    parser.add_argument("--chunk", type=int, default=100)
    parser.add_argument("--seed-turns", type=int, default=400)
    parser.add_argument("--searches", type=int, default=150, help="idle searches timed")
    parser.add_argument("--rate", type=float, default=5.0, help="the reader's searches a second")
    report_cli(
        parser, lambda a: run(a.graph, a.messages, a.chunk, a.seed_turns, a.searches, a.rate), show
    )


def show(report: Report, args: argparse.Namespace) -> None:
    """Search latency idle and during an import, and the import's rate with and without."""
    idle, during = report["search_idle_ms"], report["search_during_import_ms"]
    print(f"{report['graph']}: HYBRID top-50, idle p50 {idle['p50']} p95 {idle['p95']} ms")
    print(
        f"  during import p50 {during['p50']} p95 {during['p95']} ms "
        f"(x{report['p95_ratio']}), {during['over_100ms']:.0%} over 100 ms, n={during['n']}"
    )
    print(
        f"  import alone {report['import_alone_msg_s']} msg/s, with searches "
        f"{report['import_with_searches_msg_s']} msg/s (x{report['import_ratio']})"
    )


if __name__ == "__main__":
    main()
