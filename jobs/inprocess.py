"""The in-process job runner of embedded mode: asyncio tasks, a few at a time.

Embedded mode has no Redis and one process, so a queued job is simply a task
on the event loop. The job's record in the graph is the queue's memory: jobs
a stopped process left queued or running are resumed at the next start.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

# How long a stop waits for running jobs before cancelling them. Most jobs
# (a reflect run, a memorize of a few turns) finish in well under a second;
# one cut off mid-query leaves a graph session for the collector to warn
# about, and is redone from its last commit at the next start anyway.
STOP_GRACE_S = 5.0


class InProcessQueue:
    """Runs jobs as asyncio tasks, at most ``concurrency`` at once."""

    def __init__(self, run: Callable[[str], Awaitable[object]], concurrency: int = 2) -> None:
        self._run = run
        self._gate = asyncio.Semaphore(concurrency)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._running: set[str] = set()

    async def enqueue(self, job_id: str, attempt: int = 0) -> None:
        """Start the job soon; a job already waiting or running here is not started twice."""
        if job_id in self._tasks:
            return
        task = asyncio.create_task(self._guarded(job_id), name=f"job {job_id}")
        self._tasks[job_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(job_id, None))

    async def _guarded(self, job_id: str) -> None:
        async with self._gate:
            self._running.add(job_id)
            try:
                await self._run(job_id)
            except Exception:
                # The service recorded the failure on the job; a runner has
                # nobody else to tell, and must go on with the next job.
                log.exception("job %s crashed", job_id)
            finally:
                self._running.discard(job_id)

    async def drain(self) -> None:
        """Wait until every job queued so far has run (tests, bulk imports)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def close(self, grace_s: float = STOP_GRACE_S) -> None:
        """Stop: waiting jobs at once, running ones after ``grace_s`` if they have not finished.

        A cancelled job stays queued (or running) in the graph, and the next
        start resumes it.
        """
        for job_id, task in list(self._tasks.items()):
            if job_id not in self._running:
                task.cancel()
        running = [t for job_id, t in self._tasks.items() if job_id in self._running]
        if running:
            await asyncio.wait(running, timeout=grace_s)
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)
