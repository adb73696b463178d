"""A test's database on the embedded ArcadeDB, new or copied: the time until it is set up.

A new database gets its schema (constraints, property indexes, the vector
and full-text indexes) from ``GraphStore.setup``. A copy of one set up and
emptied, which is what ``tests/graphs.py`` gives each test, finds them there
and only records the model. This times both through ``tests/graphs.py``'s
own ``ArcadeBackend``, on one embedded server, in turns
(new, copy, then copy, new, …) so that the machine's drift falls on both
alike, ``--rounds`` databases of each.

    python -m bench.experiments.database_setup [--rounds 12] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
from pathlib import Path
from typing import Any

from bench.common import alternated, machine, percentiles, report_cli, stopwatch
from graph.embedded import EmbeddedArcadeDB
from hippograph.settings import EmbeddingSettings
from tests.graphs import ArcadeBackend, TestDatabase

MODEL = EmbeddingSettings().model
DIMENSIONS = 384
WAYS = ("new", "copy")


async def set_up(database: TestDatabase, data_dir: Path) -> float:
    """Seconds for ``GraphStore.setup`` on ``database`` (the connection not counted)."""
    connection = await database.connect(data_dir)
    try:
        with stopwatch() as took:
            await connection.store.setup(model=MODEL, dimensions=DIMENSIONS)
    finally:
        await connection.close()
    return took[0]


async def measure(backend: ArcadeBackend, rounds: int, data_dir: Path) -> dict[str, Any]:
    """Each way's database times and set-up times, ``rounds`` of each, in turns."""
    database_s: dict[str, list[float]] = {way: [] for way in WAYS}
    setup_s: dict[str, list[float]] = {way: [] for way in WAYS}
    for round_ in range(rounds):
        for way in alternated(WAYS, round_):
            # The tests' own way to a database: new (pristine) or a copy of
            # the template, dropped when the block ends.
            with contextlib.ExitStack() as stack:
                with stopwatch() as took:
                    database = stack.enter_context(backend.database(pristine=way == "new"))
                database_s[way].append(took[0])
                setup_s[way].append(await set_up(database, data_dir))
    return {
        "database_ms": {way: percentiles([s * 1000 for s in database_s[way]]) for way in WAYS},
        "setup_ms": {way: percentiles([s * 1000 for s in setup_s[way]]) for way in WAYS},
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="hippograph-database-setup-"))
    embedded = EmbeddedArcadeDB(data_dir / "server")
    embedded.start()
    try:
        # The template every test's database is copied from, made as the suite makes it.
        backend = ArcadeBackend(embedded).set_up_template(
            data_dir / "template", model=MODEL, dimensions=DIMENSIONS
        )
        figures = asyncio.run(measure(backend, args.rounds, data_dir))
    finally:
        embedded.stop()
    return {
        "benchmark": "database_setup",
        "machine": machine(),
        "settings": {"rounds": args.rounds, "model": MODEL, "dimensions": DIMENSIONS},
        **figures,
    }


def show(report: dict[str, Any], args: argparse.Namespace) -> None:
    """Each way's median and mean, for the database and for its schema."""
    for way in WAYS:
        made, setup = report["database_ms"][way], report["setup_ms"][way]
        print(
            f"{way:4s}: database p50 {made['p50']} ms (mean {made['mean']}), "
            f"setup p50 {setup['p50']} ms (mean {setup['mean']}), n={made['n']}"
        )
    print(report["machine"])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12, help="databases of each way")
    report_cli(parser, run, show)


if __name__ == "__main__":
    main()
