"""``python -m tests.each_server GRAPH...``: the suite on each graph server, one verdict each.

``make test`` runs one pytest per server (``--graph``). The embedded
ArcadeDB run holds the whole suite; a Neo4j run holds the store's contract
and the few tests kept on every server (tests/conftest.py). One at a time,
each run writes pytest's own output, untouched, so whatever reads pytest's
output (CI's record of the run) reads it as ever; side by side, each line is
prefixed with its server. The summary says each run's time and outcome. The
exit status is the first failing run's, or 0.

``--jobs N`` runs N side by side. Much of a run waits on a child process or
a server (one of two cores sat idle in the ArcadeDB run), and the three
side by side took 969 s here against 1,242 s one after the other; but on
two cores the Neo4j runs' worker-kill test then saw its job time out
before its first write, twice, with a lease of 3 s and of 8 s. So ``make
test`` runs them one at a time (``TEST_JOBS=3`` for the quicker run).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    """How one server's run ended."""

    graph: str
    status: int
    seconds: float


async def _run(
    graph: str, pytest: Sequence[str], slots: asyncio.Semaphore, prefixed: bool
) -> Outcome:
    async with slots:
        started = time.monotonic()
        # Unprefixed, the child writes to our own stdout: pytest's output as it is.
        process = await asyncio.create_subprocess_exec(
            *pytest,
            f"--graph={graph}",
            stdout=asyncio.subprocess.PIPE if prefixed else None,
            stderr=asyncio.subprocess.STDOUT if prefixed else None,
        )
        if process.stdout is not None:
            async for raw in process.stdout:
                print(f"[{graph}] {raw.decode('utf-8', 'replace').rstrip()}", flush=True)
        status = await process.wait()
        return Outcome(graph, status, time.monotonic() - started)


async def run_all(graphs: Sequence[str], pytest: Sequence[str], jobs: int) -> list[Outcome]:
    """Every server's run, at most ``jobs`` at a time, in the order given."""
    slots = asyncio.Semaphore(jobs)
    prefixed = jobs > 1
    return list(await asyncio.gather(*(_run(g, pytest, slots, prefixed) for g in graphs)))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite on each server named; 0 when every run passed."""
    parser = argparse.ArgumentParser(prog="python -m tests.each_server", description=__doc__)
    parser.add_argument("graphs", nargs="+", help="arcadedb, neo4j-5.26, neo4j-2026")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time (default 1)")
    parser.add_argument(
        "--pytest", default=f"{sys.executable} -m pytest", help="the pytest command"
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    started = time.monotonic()
    outcomes = asyncio.run(run_all(args.graphs, args.pytest.split(), args.jobs))
    print(f"each_server: {len(outcomes)} runs in {time.monotonic() - started:.0f} s", flush=True)
    for o in outcomes:
        verdict = "passed" if o.status == 0 else f"FAILED (exit {o.status})"
        print(f"each_server: {o.graph} {verdict} in {o.seconds:.0f} s", flush=True)
    return next((o.status for o in outcomes if o.status != 0), 0)


if __name__ == "__main__":
    sys.exit(main())
