"""One app's start and stop in process, piece by piece: what every API test pays.

Each cycle creates a database on one embedded ArcadeDB, makes the app
(``create_app``), starts it (the lifespan: the graph's schema and indexes,
the services), answers one query, stops it and drops the database. The
model is loaded once and shared, as the test suite shares it. Wall and CPU
time are per cycle, averaged after a few warm-up cycles.

    python -m bench.app_start [--cycles 30] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from bench.common import ADMIN_HEADERS, ADMIN_KEY, Report, document, machine, report_cli
from graph.embedded import EmbeddedArcadeDB
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from hippograph.settings import ApiSettings, EmbeddingSettings, GraphSettings, Settings

PIECES = ("create database", "create_app", "lifespan start", "one query", "stop", "drop database")


class Timer:
    """Wall and CPU seconds per named piece, summed over the cycles timed."""

    def __init__(self) -> None:
        self.sums: defaultdict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])

    @contextmanager
    def piece(self, name: str) -> Iterator[None]:
        """Time the block as ``name``."""
        # process_time counts every thread, the embedded server's JVM's too.
        wall, cpu = time.perf_counter(), time.process_time()
        yield
        self.sums[name][0] += time.perf_counter() - wall
        self.sums[name][1] += time.process_time() - cpu


def cycle(
    server: EmbeddedArcadeDB, embedder: SentenceTransformerEmbedder, root: Path, timer: Timer
) -> None:
    """One database and app, from creation to drop."""
    name = "b" + uuid.uuid4().hex[:16]
    data_dir = Path(tempfile.mkdtemp(dir=root))
    with timer.piece("create database"):
        server.create_database(name)
    with timer.piece("create_app"):
        settings = Settings(
            graph=GraphSettings(data_dir=data_dir, database=name),
            api=ApiSettings(admin_key=ADMIN_KEY),
        )
        app = create_app(settings, embedder=embedder, embedded=server, database=name)
    client = TestClient(app)
    with timer.piece("lifespan start"):
        client.__enter__()
    with timer.piece("one query"):
        answer = client.post(
            "/graphql",
            json={"query": document("BenchViewer")},
            headers=ADMIN_HEADERS,
        )
        assert answer.json() == {"data": {"viewer": {"admin": True}}}, answer.text
    with timer.piece("stop"):
        client.__exit__(None, None, None)
    with timer.piece("drop database"):
        server.drop_database(name)


def run(cycles: int, warmup: int) -> dict[str, Any]:
    """``warmup`` cycles untimed, then ``cycles`` timed; milliseconds per cycle."""
    with tempfile.TemporaryDirectory(prefix="hippograph-bench-") as tmp:
        root = Path(tmp)
        embedder = asyncio.run(
            SentenceTransformerEmbedder.load(EmbeddingSettings(cache_dir=root / "models"))
        )
        server = EmbeddedArcadeDB(root / "arcadedb")
        server.start()
        try:
            for _ in range(warmup):
                cycle(server, embedder, root, Timer())
            timer = Timer()
            for _ in range(cycles):
                cycle(server, embedder, root, timer)
        finally:
            server.stop()
    per_cycle = {
        name: {
            "wall_ms": round(timer.sums[name][0] / cycles * 1000, 1),
            "cpu_ms": round(timer.sums[name][1] / cycles * 1000, 1),
        }
        for name in PIECES
    }
    total = {
        key: round(sum(piece[key] for piece in per_cycle.values()), 1)
        for key in ("wall_ms", "cpu_ms")
    }
    return {"cycles": cycles, "per_cycle": per_cycle, "total": total, "machine": machine()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    report_cli(parser, lambda a: run(a.cycles, a.warmup), show)


def show(report: Report, args: argparse.Namespace) -> None:
    """One line per piece of a cycle."""
    for name, piece in [*report["per_cycle"].items(), ("whole cycle", report["total"])]:
        print(f"{name:16s} {piece['wall_ms']:7.1f} ms wall {piece['cpu_ms']:7.1f} ms CPU")


if __name__ == "__main__":
    main()
