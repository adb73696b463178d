"""A test's database on the embedded ArcadeDB, new or copied: the time until it is set up.

A new database gets its schema (constraints, property indexes, the vector
and full-text indexes) from ``GraphStore.setup``. A copy of one set up and
emptied, which is what ``tests/graphs.py`` gives each test, finds them there
and only records the model. This times both, one embedded server, in turns
(new, copy, then copy, new, …) so that the machine's drift falls on both
alike, ``--rounds`` databases of each.

    python -m bench.experiments.database_setup [--rounds 12] [--json]
"""

from __future__ import annotations

import argparse
import tempfile
import uuid
from pathlib import Path
from typing import Any

from bench.common import machine, percentiles, report_cli, stopwatch
from graph.embedded import EmbeddedArcadeDB
from graph.store import connect
from hippograph.services import job_payloads
from hippograph.settings import EmbeddingSettings, GraphSettings

MODEL = EmbeddingSettings().model
DIMENSIONS = 384
WAYS = ("new", "copy")


async def set_up(embedded: EmbeddedArcadeDB, name: str, data_dir: Path) -> float:
    """Seconds for ``GraphStore.setup`` on database ``name`` (the connection not counted)."""
    settings = GraphSettings(data_dir=data_dir, database=name)
    connection = await connect(settings, job_codec=job_payloads, embedded=embedded, database=name)
    try:
        with stopwatch() as took:
            await connection.store.setup(model=MODEL, dimensions=DIMENSIONS)
    finally:
        await connection.close()
    return took[0]


async def make_template(embedded: EmbeddedArcadeDB, data_dir: Path) -> str:
    """A database set up for the default model, emptied and closed, as the tests' template."""
    name = "template" + uuid.uuid4().hex[:8]
    embedded.create_database(name)
    await set_up(embedded, name, data_dir)
    settings = GraphSettings(data_dir=data_dir, database=name)
    connection = await connect(settings, job_codec=job_payloads, embedded=embedded, database=name)
    try:
        await connection.store.graph.run_schema("MATCH (n) DETACH DELETE n")
    finally:
        await connection.close()
    embedded.close_database(name)
    return name


async def run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="hippograph-database-setup-"))
    embedded = EmbeddedArcadeDB(data_dir / "server")
    embedded.start()
    database_s: dict[str, list[float]] = {way: [] for way in WAYS}
    setup_s: dict[str, list[float]] = {way: [] for way in WAYS}
    try:
        template = await make_template(embedded, data_dir)
        for round_ in range(args.rounds):
            for way in WAYS if round_ % 2 == 0 else tuple(reversed(WAYS)):
                name = "t" + uuid.uuid4().hex[:16]
                with stopwatch() as took:
                    if way == "new":
                        embedded.create_database(name)
                    else:
                        embedded.clone_database(template, name)
                database_s[way].append(took[0])
                setup_s[way].append(await set_up(embedded, name, data_dir))
                embedded.drop_database(name)
    finally:
        embedded.stop()
    return {
        "benchmark": "database_setup",
        "machine": machine(),
        "settings": {"rounds": args.rounds, "model": MODEL, "dimensions": DIMENSIONS},
        "database_ms": {way: percentiles([s * 1000 for s in database_s[way]]) for way in WAYS},
        "setup_ms": {way: percentiles([s * 1000 for s in setup_s[way]]) for way in WAYS},
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
