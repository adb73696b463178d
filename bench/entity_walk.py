"""The entity walk alone at scale: its latency per query, on each graph server.

Loads ``--memories`` memories of one user (the search benchmark's texts, each
with the entities it mentions, as memorize links them) with random vectors:
the walk never reads a vector, and embedding 100,000 texts takes most of an
hour on two shared cores. Then, for each LoCoMo question, times the walk a
HYBRID search starts beside its keyword side (``EntityGraph.walk``: the
question's names, the default cap), and reports p50/p95 with how many seeds
and memories it read. The whole search with and without the walk is
``bench.search_latency`` ("hybrid" against "hybrid-no-entities").

    python -m bench.entity_walk [--memories 100000] [--graph arcadedb|neo4j-5.26|neo4j-2026]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench import graphs
from bench.common import Report, locomo_questions, percentiles, report_cli, timed_ms
from bench.graphs import open_graph, report_head
from bench.search_latency import distinct_texts, speaker_mentions, timeline_memory, write_batch
from graph.store import GraphStore, connect
from hippograph import text
from hippograph.clock import utc_now
from hippograph.entities import query_norms
from hippograph.models import IndexedText, MemoryFilter, Sources, User
from hippograph.services import job_payloads
from hippograph.settings import SearchSettings

USER = "walk-user"
DIMENSIONS = 384


async def run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="hippograph-walk-"))
    texts = distinct_texts(args.memories)
    questions = locomo_questions()[: args.searches]
    caps = [int(c) for c in args.caps.split(",")]
    names = SearchSettings().entity_max_names
    rng = np.random.default_rng(7)
    with open_graph(args.graph, data_dir) as graph:
        connection = await connect(graph.settings, job_codec=job_payloads)
        try:
            store = connection.store
            await store.setup(model="random", dimensions=DIMENSIONS)
            await store.users.create_user(User(id=USER, name="Walk", created_at=utc_now()))
            start_time = utc_now() - timedelta(days=365)
            write_s, edges = 0.0, 0
            for start in range(0, len(texts), 1000):
                items, mentions = [], []
                for i in range(start, min(start + 1000, len(texts))):
                    memory = timeline_memory(USER, texts, i, start_time)
                    vector = rng.standard_normal(DIMENSIONS)
                    vector /= np.linalg.norm(vector)
                    items.append(
                        (
                            memory,
                            IndexedText(
                                embedding=vector.tolist(), search_text=text.search_text(texts[i])
                            ),
                            Sources(),
                        )
                    )
                    mentions.append(speaker_mentions(memory))
                edges += sum(len(m.entities) for m in mentions)
                write_s += await write_batch(store, items, mentions, start + len(items), len(texts))
            print(file=sys.stderr)
            now = utc_now()
            norms = [query_norms(q)[:names] for q in questions]
            walks = {
                f"cap {cap}": await time_walks(store, norms, cap, args.warmup, now) for cap in caps
            }
        finally:
            await connection.close()
    return {
        **report_head("entity_walk", graph),
        "memories": len(texts),
        "mentions": edges,
        "insert_memories_per_s_with_entities": round(len(texts) / write_s, 1),
        "walks_per_cap": len(norms),
        "by_cap": walks,
    }


async def time_walks(
    store: GraphStore, norms: list[list[str]], cap: int, warmup: int, now: datetime
) -> dict[str, Any]:
    """The walk at ``cap`` for each question's names, after ``warmup`` untimed ones."""
    latencies, walked = await timed_ms(
        lambda ns: store.entities.walk(USER, ns, cap, MemoryFilter(), now), norms, norms[:warmup]
    )
    seeds = [len(found) for found in walked]
    rows = [sum(len(hits) for _, _, hits in found) for found in walked]
    return {
        "latency_ms": percentiles(latencies),
        "seeds_per_walk": round(sum(seeds) / len(seeds), 2),
        "memories_read_per_walk": round(sum(rows) / len(rows), 1),
        "max_memories_read": max(rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument(
        "--caps",
        default=f"{SearchSettings().entity_max_mentions},2000,20000",
        help="entity mention caps to time the walk at (the default cap first)",
    )
    graphs.add_argument(parser)
    report_cli(parser, run, show)


def show(report: Report, args: argparse.Namespace) -> None:
    """The insert rate, then the walk's latency and reads at each cap."""
    graph = report["graph"]
    print(
        f"{graph['server']} {graph['version']}: {report['memories']} memories, "
        f"{report['mentions']} mentions, {report['insert_memories_per_s_with_entities']} "
        "memories/s inserted with their entities"
    )
    for cap, walk in report["by_cap"].items():
        latency = walk["latency_ms"]
        print(
            f"{cap}: p50 {latency['p50']} p95 {latency['p95']} ms, "
            f"{walk['seeds_per_walk']} seeds and {walk['memories_read_per_walk']} memories "
            f"read per walk (at most {walk['max_memories_read']})"
        )


if __name__ == "__main__":
    main()
