"""``hippograph prepare-jvm``: the embedded graph's class-data archives (graph/jvm_archive.py).

Optional: without them the embedded graph starts as before, a little slower,
so ``make run`` and ``make test`` go on when this command fails.

``python -m hippograph.cli_jvm BASE TOP`` is the training start the top
archive is dumped from: the embedded graph started, the schema set up on a
throwaway database, a user written and read.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippograph.settings import Settings


def cmd_prepare_jvm(args: argparse.Namespace, settings: Settings) -> int:
    """Make this install's archives unless they are there; 1 (and why) if a step fails."""
    from graph.jvm_archive import archives, prepare

    try:
        prepared = prepare(__name__, archives())
    except RuntimeError as exc:
        print(
            f"hippograph: the JVM's class-data archives could not be made ({exc}); "
            "the embedded graph starts without them",
            file=sys.stderr,
        )
        return 1
    directory = prepared.archives.directory
    if prepared.made:
        print(f"the embedded graph's JVM archives made in {directory} ({prepared.seconds:.1f} s)")
    else:
        print(f"the embedded graph's JVM archives are in {directory} already")
    return 0


def add_jvm_parser(sub: Any) -> None:
    """``prepare-jvm``'s arguments (none)."""
    prepare = sub.add_parser(
        "prepare-jvm",
        help="make the class-data archives the embedded graph's JVM starts faster with",
    )
    prepare.set_defaults(func=cmd_prepare_jvm)


async def _training_start(base: Path, top: Path) -> None:
    from graph.embedded import EmbeddedArcadeDB
    from graph.jvm_archive import training_options
    from graph.store import connect
    from hippograph.models import User
    from hippograph.services import job_payloads
    from hippograph.settings import GraphSettings

    with tempfile.TemporaryDirectory(prefix="hippograph-jvm-training-") as data_dir:
        server = EmbeddedArcadeDB(Path(data_dir), archive_options=training_options(base, top))
        settings = GraphSettings(data_dir=Path(data_dir))
        connection = await connect(settings, job_codec=job_payloads, embedded=server)
        try:
            store = connection.store
            await store.setup(model="jvm-training", dimensions=8)
            await store.users.create_user(User("ann", "Ann", datetime.now(UTC)))
            await store.users.get_users(["ann"])
            await store.users.list_users(None, "", 10)
            await store.stats.counts()
        finally:
            await connection.close()
            server.stop()


if __name__ == "__main__":
    # The JVM writes TOP as this process exits.
    asyncio.run(_training_start(Path(sys.argv[1]), Path(sys.argv[2])))
