"""``hippograph worker`` with hooks in the reflect write, so a test can catch it mid-job.

Run as ``python -m tests.jobs.paused_worker worker`` (the repository root on
``PYTHONPATH``); the hooks are chosen by environment variables and change
nothing else:

``REFLECT_TEST_PAUSE_AFTER=k`` and ``REFLECT_TEST_PAUSED=path``
    Once the reflect write has made ``k`` reflections with their SUMMARIZES
    edges, inside its still open transaction, write the process id to
    ``path`` and hang there until the test kills the process.
``REFLECT_TEST_GATE=dir``
    Before the reflect write, touch ``dir/ready-<pid>`` and wait for
    ``dir/go``: two workers that have read the same pending facts then
    write at the same moment.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction, Record

import graph.reflection as reflection_graph
from graph.driver import fetch as real_fetch
from hippograph.cli import main
from hippograph.models import IndexedText, Memory

PAUSE_AFTER = "REFLECT_TEST_PAUSE_AFTER"
PAUSED = "REFLECT_TEST_PAUSED"
GATE = "REFLECT_TEST_GATE"


def pause_inside_the_write(after: int, paused: Path) -> None:
    """Hang the reflect write's transaction after ``after`` reflections (see the module)."""
    made = 0

    async def fetch(
        tx: AsyncManagedTransaction, query: LiteralString, params: Mapping[str, Any] | None = None
    ) -> list[Record]:
        nonlocal made
        rows = await real_fetch(tx, query, params)
        if query == reflection_graph.SUMMARIZE_FACTS:
            made += 1
            if made == after:
                await asyncio.to_thread(paused.write_text, str(os.getpid()))
                await asyncio.sleep(3600)  # the test kills the process meanwhile
        return rows

    # graph.reflection imported the driver's fetch by name: replace it there.
    setattr(reflection_graph, "fetch", fetch)  # noqa: B010


def gate_before_the_write(gate: Path) -> None:
    """Hold the reflect write until the test opens the gate (see the module)."""
    real = reflection_graph.ReflectionGraph.write

    def wait_for_the_gate() -> None:
        (gate / f"ready-{os.getpid()}").touch()
        while not (gate / "go").exists():
            time.sleep(0.01)

    async def write(
        self: reflection_graph.ReflectionGraph,
        reflections: Sequence[tuple[Memory, IndexedText, Sequence[str]]],
    ) -> tuple[int, int]:
        await asyncio.to_thread(wait_for_the_gate)
        return await real(self, reflections)

    reflection_graph.ReflectionGraph.write = write  # type: ignore[method-assign]


if __name__ == "__main__":
    if PAUSE_AFTER in os.environ:
        pause_inside_the_write(int(os.environ[PAUSE_AFTER]), Path(os.environ[PAUSED]))
    if GATE in os.environ:
        gate_before_the_write(Path(os.environ[GATE]))
    raise SystemExit(main())
