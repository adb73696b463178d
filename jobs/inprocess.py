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


class InProcessQueue:
    """Runs jobs as asyncio tasks, at most ``concurrency`` at once."""

    def __init__(self, run: Callable[[str], Awaitable[object]], concurrency: int = 2) -> None:
        self._run = run
        self._gate = asyncio.Semaphore(concurrency)
        self._tasks: dict[str, asyncio.Task[None]] = {}

    async def enqueue(self, job_id: str, attempt: int = 0) -> None:
        """Start the job soon; a job already waiting or running here is not started twice."""
        if job_id in self._tasks:
            return
        task = asyncio.create_task(self._guarded(job_id), name=f"job {job_id}")
        self._tasks[job_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(job_id, None))

    async def _guarded(self, job_id: str) -> None:
        async with self._gate:
            try:
                await self._run(job_id)
            except Exception:
                # The service recorded the failure on the job; a runner has
                # nobody else to tell, and must go on with the next job.
                log.exception("job %s crashed", job_id)

    async def drain(self) -> None:
        """Wait until every job queued so far has run (tests, bulk imports)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def close(self) -> None:
        """Stop: running jobs are cancelled and stay queued in the graph for the next start."""
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)
