"""``python -m tests.each_server RUN...``: the suite on each graph server, one verdict each.

``make test`` runs one pytest per server (``--graph``), or per part of a
server's suite (``arcadedb:llm``, ``arcadedb:processes``, ``arcadedb:rest``; see
``PARTS``).
The embedded ArcadeDB run holds the whole suite; a Neo4j run holds the
store's contract and the few tests kept on every server (tests/conftest.py).

``--jobs N`` runs N side by side: much of a run waits on a child process or
a server, and one of two cores sat idle in a lone ArcadeDB run. Each run's
output is printed whole, untouched and in the order given (the first
unfinished run's as it comes, the others' when their turn comes), so a
reader of pytest's output (CI's record of the run) reads each run as pytest
wrote it. The summary says each run's time and outcome; the exit status is
the first failing run's, or 0.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

# A server's suite in parts, each its own run, so that side by side no one
# run is the long pole: ``arcadedb:llm`` runs the tests that ask a real model
# (one question is 10-45 s on a lone core, and the model server uses one),
# ``arcadedb:processes`` the tests that drive whole processes (a served API
# killed and restarted, the command line) or load models of their own (the
# embedding runtimes), ``arcadedb:rest`` everything else. On two Intel cores
# the model's tests, inside the processes part, made it a 2,176 s long pole,
# its last 740 s on one core; as a run of their own they took 650 s beside
# the rest (docs/decisions/2026-11-29-timing-on-the-stub.md).
PARTS: dict[str, tuple[str, ...]] = {
    "llm": ("tests/llm",),
    "processes": ("tests/e2e", "tests/cli", "tests/adapters"),
}
REST = "rest"


def pytest_args(run: str) -> list[str]:
    """pytest's arguments for ``run``: a server, or ``server:part`` for a part of its suite."""
    graph, _, part = run.partition(":")
    args = [f"--graph={graph}"]
    if not part:
        return args
    if part == REST:
        return args + [f"--ignore={path}" for paths in PARTS.values() for path in paths]
    if part in PARTS:
        return args + list(PARTS[part])
    raise ValueError(f"{run}: no part {part!r} (parts: {', '.join([*PARTS, REST])})")


@dataclass(frozen=True)
class Outcome:
    """How one run ended."""

    run: str
    status: int
    seconds: float


async def _run(
    run: str, pytest: Sequence[str], slots: asyncio.Semaphore, lines: asyncio.Queue[str | None]
) -> Outcome:
    """One run, its output lines into ``lines`` as they come, then None."""
    try:
        async with slots:
            started = time.monotonic()
            process = await asyncio.create_subprocess_exec(
                *pytest,
                *pytest_args(run),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            assert process.stdout is not None
            async for raw in process.stdout:
                lines.put_nowait(raw.decode("utf-8", "replace"))
            status = await process.wait()
            return Outcome(run, status, time.monotonic() - started)
    finally:
        lines.put_nowait(None)


async def _in_order(runs: Sequence[str], queues: Sequence[asyncio.Queue[str | None]]) -> None:
    """Each run's output whole, in the order given: the first unfinished run's as it
    comes, the others' kept until their turn, so no two runs' lines mix."""
    for run, lines in zip(runs, queues, strict=True):
        print(f"each_server: {run} ({' '.join(pytest_args(run))})", flush=True)
        while (line := await lines.get()) is not None:
            sys.stdout.write(line)
            sys.stdout.flush()


async def run_all(runs: Sequence[str], pytest: Sequence[str], jobs: int) -> list[Outcome]:
    """Every run, at most ``jobs`` at a time, started and printed in the order given."""
    slots = asyncio.Semaphore(jobs)
    queues: list[asyncio.Queue[str | None]] = [asyncio.Queue() for _ in runs]
    printer = asyncio.create_task(_in_order(runs, queues))
    outcomes = await asyncio.gather(
        *(_run(r, pytest, slots, q) for r, q in zip(runs, queues, strict=True))
    )
    await printer
    return list(outcomes)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite on each server (or part) named; 0 when every run passed."""
    parser = argparse.ArgumentParser(prog="python -m tests.each_server", description=__doc__)
    parser.add_argument(
        "runs",
        nargs="+",
        help="arcadedb, neo4j-5.26, neo4j-2026, or a part of one: arcadedb:llm, "
        "arcadedb:processes, arcadedb:rest",
    )
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time (default 1)")
    parser.add_argument(
        "--pytest", default=f"{sys.executable} -m pytest", help="the pytest command"
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    for run in args.runs:
        try:
            pytest_args(run)
        except ValueError as exc:
            parser.error(str(exc))
    started = time.monotonic()
    outcomes = asyncio.run(run_all(args.runs, args.pytest.split(), args.jobs))
    print(f"each_server: {len(outcomes)} runs in {time.monotonic() - started:.0f} s", flush=True)
    for o in outcomes:
        verdict = "passed" if o.status == 0 else f"FAILED (exit {o.status})"
        print(f"each_server: {o.run} {verdict} in {o.seconds:.0f} s", flush=True)
    return next((o.status for o in outcomes if o.status != 0), 0)


if __name__ == "__main__":
    sys.exit(main())
