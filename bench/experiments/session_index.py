"""The context stage's index, A/B on one server and one set of data.

Search's context stage fetches the turns next to its best hits by (session,
seq). Through an index on the session alone, Neo4j 5.26 reads every turn of
each session and filters them by seq; through one on both, it reads the
turns it wants. This loads ``--memories`` memories once (40 turns a session,
as ``bench.search_latency`` does), then alternates the two indexes
``--rounds`` times after a restart (dropping one, creating and awaiting the
other) and times ``--searches`` default HYBRID searches in-process under
each, after a warm-up. The states take turns in the order A B, B A, A B…,
so the machine's drift falls on both alike.

    python -m bench.experiments.session_index --graph neo4j-5.26 --memories 100000 [--json]

(Neo4j releases only: it drops and creates indexes with Neo4j's Cypher.)
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any, LiteralString

from bench import graphs
from bench.common import (
    ADMIN_KEY,
    alternated,
    locomo_questions,
    percentiles,
    report_cli,
    stopwatch,
    timed_ms,
)
from bench.graphs import open_graph, report_head
from bench.search_latency import USER, distinct_texts, load
from hippograph.modes import SearchMode
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.search import SearchRequest
from hippograph.settings import ApiSettings, Settings

# name -> (the index to create, the one to drop first); Neo4j's Cypher
STATES: dict[str, tuple[LiteralString, LiteralString]] = {
    "session": (
        "CREATE INDEX memory_session IF NOT EXISTS FOR (n:Memory) ON (n.session_id)",
        "DROP INDEX memory_session_seq IF EXISTS",
    ),
    "session+seq": (
        "CREATE INDEX memory_session_seq IF NOT EXISTS FOR (n:Memory) ON (n.session_id, n.seq)",
        "DROP INDEX memory_session IF EXISTS",
    ),
}


async def switch(runtime: Runtime, state: str) -> float:
    """Leave only ``state``'s index; the seconds it took to build."""
    create, drop = STATES[state]
    graph = runtime.connection.store.graph
    await graph.run_schema(drop)
    with stopwatch() as took:
        await graph.run_schema(create)
        await graph.run_schema("CALL db.awaitIndexes(600)")
    return took[0]


async def timed(runtime: Runtime, questions: list[str], warmup: int) -> list[float]:
    """Milliseconds of each default HYBRID search, after ``warmup`` untimed ones."""
    search = runtime.services.search
    # the API's defaults (HYBRID, default weights), without touching what it finds
    ask = [SearchRequest(USER, q, 10, mode=SearchMode.NORMAL, touch=False) for q in questions]
    samples, _ = await timed_ms(
        lambda request: search.search(SETTINGS_ADMIN, request), ask, ask[:warmup]
    )
    return samples


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if not args.graph.startswith("neo4j-"):
        raise SystemExit(
            "bench.experiments.session_index drops and creates indexes with Neo4j's Cypher: "
            "--graph neo4j-…"
        )
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="hippograph-session-index-"))
    questions = (locomo_questions() * 2)[: args.searches]
    with open_graph(args.graph, data_dir) as graph:
        settings = Settings(graph=graph.settings, api=ApiSettings(admin_key=ADMIN_KEY))
        runtime = await Runtime.start(settings)
        try:
            loaded = await load(runtime, distinct_texts(args.memories), args.batch, entities=False)
        finally:
            await runtime.stop()
        # Timed after a restart, as bench.search_latency does: right after a
        # bulk load the server is still settling the indexes it just filled.
        runtime = await Runtime.start(settings)
        samples: dict[str, list[float]] = {name: [] for name in STATES}
        builds: dict[str, list[float]] = {name: [] for name in STATES}
        try:
            for round_ in range(args.rounds):
                for name in alternated(list(STATES), round_):
                    builds[name].append(round(await switch(runtime, name), 1))
                    samples[name] += await timed(runtime, questions, args.warmup)
        finally:
            await runtime.stop()
    return {
        **report_head("session_index", graph),
        "settings": {
            "memories": args.memories,
            "searches_per_round": len(questions),
            "rounds": args.rounds,
            "warmup": args.warmup,
            "search": "HYBRID, default weights (context stage on, entity walk off), top 10",
        },
        "insert": loaded,
        "hybrid_ms": {name: percentiles(ms) for name, ms in samples.items()},
        "index_build_s": builds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    graphs.add_argument(parser)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--data-dir", help="where the graph lives (default: a new temp dir)")
    report_cli(parser, run, show)


def show(report: dict[str, Any], args: argparse.Namespace) -> None:
    """HYBRID latency per indexed property."""
    for name, latency in report["hybrid_ms"].items():
        print(f"index on {name:12s} HYBRID p50/p95 {latency['p50']}/{latency['p95']} ms")
    print(report["graph"], report["machine"])


if __name__ == "__main__":
    main()
