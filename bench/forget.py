"""A FUZZ pass over one user's memories, then a second pass right after.

1. Start the runtime on an empty data directory (``--graph``: the embedded
   ArcadeDB or a Neo4j release, see ``bench.graphs``), create one user and
   bulk-insert ``--memories`` memories: LoCoMo turns as text (past the 788
   turns, a turn plus the start of another, so every text differs),
   importances 0.0–0.9, categories fact and episode (one in five), last
   accessed uniformly between now and ``--max-age-days`` ago. Stored vectors
   are random unit vectors: a pass never reads them, and embedding 100k texts
   first would only slow the set-up. Every text the pass writes is embedded
   for real, by the real model.
2. Time the first FUZZ pass through the service (the mutation's code path):
   every memory starts full, so nearly all of them change level — the pass
   after importing years of history at once. Then a second pass right after:
   it must change nothing.
3. Time the next day's pass (weights a day later: only memories that crossed
   a level boundary since change — the daily sweep's steady state), and again
   a pass right after it.

    python -m bench.forget --memories 100000 [--max-age-days 1000] [--graph G] [--json]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench import graphs
from bench.common import Report, machine, memory_at, report_cli
from bench.graphs import open_graph
from bench.search_latency import distinct_texts
from hippograph import text
from hippograph.clock import utc_now
from hippograph.forget_report import moves as level_moves
from hippograph.forgetting import ForgetRequest
from hippograph.models import IndexedText, MemoryCategory, MemoryKind, Sources
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.settings import ForgettingSettings, Settings

USER = "bench-user"
BATCH = 1000


async def load(runtime: Runtime, count: int, max_age_days: float) -> dict[str, Any]:
    """The user and ``count`` memories with spread ages, importances and categories."""
    await runtime.services.users.create_user(SETTINGS_ADMIN, USER, "Bench")
    store = runtime.connection.store
    rng = np.random.default_rng(11)
    texts = distinct_texts(count)
    now = utc_now()
    started = time.perf_counter()
    for start in range(0, count, BATCH):
        items = []
        vectors = rng.standard_normal((min(BATCH, count - start), runtime.embedder.dimensions))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        for offset, vector in enumerate(vectors):
            i = start + offset
            accessed = now - timedelta(days=float(rng.uniform(0, max_age_days)))
            episode = i % 5 == 0
            items.append(
                (
                    memory_at(
                        USER,
                        MemoryKind.EPISODIC if episode else MemoryKind.SEMANTIC,
                        texts[i],
                        (i % 10) / 10,
                        accessed,
                        category=MemoryCategory.EPISODE if episode else MemoryCategory.FACT,
                    ),
                    IndexedText(embedding=vector.tolist(), search_text=text.search_text(texts[i])),
                    Sources(),
                )
            )
        await store.memories.add_many(items)
        print(f"  inserted {start + len(items)}/{count}", file=sys.stderr, end="\r")
    print(file=sys.stderr)
    return {"memories": count, "load_s": round(time.perf_counter() - started, 1)}


async def one_pass(runtime: Runtime, as_of: datetime) -> dict[str, Any]:
    """One FUZZ pass at ``as_of``: seconds, counts, level moves."""
    service = runtime.services.forgetting
    started = time.perf_counter()
    report = await service.run(ForgetRequest(USER), False, as_of)
    seconds = time.perf_counter() - started
    moves = Counter(
        {f"{m.from_level.value}>{m.to_level.value}": m.count for m in level_moves(report.counts)}
    )
    return {
        "seconds": round(seconds, 1),
        "memories_per_s": round(report.count("scanned") / seconds, 1),
        "scanned": report.count("scanned"),
        "changed": report.count("changed"),
        "unchanged": report.count("unchanged"),
        "exempt": report.count("exempt"),
        "promoted": report.count("promoted"),
        "batches": report.count("batches"),
        "level_moves": dict(sorted(moves.items())),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    """Load, then two passes."""
    with (
        tempfile.TemporaryDirectory(prefix="hippograph-bench-forget-") as data,
        open_graph(args.graph, Path(data)) as graph,
    ):
        settings = Settings(
            graph=graph.settings,
            forgetting=ForgettingSettings(batch_size=args.batch_size, sweep_interval_s=0),
        )
        runtime = await Runtime.start(settings)
        try:
            loaded = await load(runtime, args.memories, args.max_age_days)
            passes = {}
            today = utc_now()
            for name, as_of in (
                ("first_pass", today),
                ("right_after", today),
                ("next_day", today + timedelta(days=1)),
                ("right_after_next_day", today + timedelta(days=1)),
            ):
                passes[name] = await one_pass(runtime, as_of)
                print(f"  {name}: {passes[name]['seconds']} s", file=sys.stderr)
        finally:
            await runtime.stop()
    setup = loaded | {"max_age_days": args.max_age_days, "batch_size": args.batch_size}
    return {"machine": machine(), "graph": graph.described(), "setup": setup} | passes


def cli() -> None:
    """Parse arguments, run, print a table or JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--max-age-days", type=float, default=1000.0)
    parser.add_argument("--batch-size", type=int, default=1000)
    graphs.add_argument(parser)
    report_cli(parser, main, show)


def show(result: Report, args: argparse.Namespace) -> None:
    """The setup, then one line per pass with its level moves."""
    graphs.show_graph(result)
    print(f"memories: {result['setup']['memories']} (loaded in {result['setup']['load_s']} s)")
    for name in ("first_pass", "right_after", "next_day", "right_after_next_day"):
        p = result[name]
        print(
            f"{name.replace('_', ' ')}: {p['seconds']} s, {p['memories_per_s']} memories/s, "
            f"changed {p['changed']}, unchanged {p['unchanged']}, exempt {p['exempt']}"
        )
        for move, n in p["level_moves"].items():
            print(f"  {move}: {n}")


if __name__ == "__main__":
    cli()
