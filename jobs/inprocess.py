"""Embedded mode's jobs: a queue of ids in this process, and a consumer that drains it.

Embedded mode has no Redis and one process, so the queue is an asyncio queue
of job ids: a plain transport, as Redis is for arq. The consumer, built after
the services, is to it what an arq worker is to Redis: it hands each id to
the job runner, a few at a time. The job's record in the graph is the
queue's memory: jobs a stopped process left queued or running are queued
again at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from hippograph.jobs import Delivery, QueuedRun

log = logging.getLogger(__name__)

# How long a stop waits for running jobs before cancelling them. Most jobs
# (a reflect run, a memorize of a few turns) finish in well under a second;
# one cut off mid-query leaves a graph session for the collector to warn
# about, and is redone from its last commit at the next start anyway.
STOP_GRACE_S = 5.0


class InProcessQueue:
    """Job ids waiting in this process, each at most once until it has been taken and run."""

    def __init__(self) -> None:
        self._waiting: asyncio.Queue[str] = asyncio.Queue()
        self._pending: set[str] = set()

    async def enqueue(self, delivery: Delivery) -> bool:
        """Queue the id; one already waiting or running here is not queued twice
        (whatever the attempt, or the lapse or sweep it comes from), and False is
        answered."""
        if delivery.job_id in self._pending:
            return False
        self._pending.add(delivery.job_id)
        self._waiting.put_nowait(delivery.job_id)
        return True

    async def holds(self, run: QueuedRun) -> bool:
        """Whether the job's id is waiting or running here."""
        return run.job_id in self._pending

    async def take(self) -> str:
        """The next id (waits for one); call :meth:`done` with it once it has run."""
        return await self._waiting.get()

    def done(self, job_id: str) -> None:
        """The id taken has run (or failed to): it may be queued again."""
        self._pending.discard(job_id)
        self._waiting.task_done()

    async def drain(self) -> None:
        """Wait until every id queued so far has run (tests, bulk imports)."""
        await self._waiting.join()


class InProcessConsumer:
    """Runs the ids of an :class:`InProcessQueue`, at most ``concurrency`` at once."""

    def __init__(
        self,
        queue: InProcessQueue,
        run: Callable[[str], Awaitable[object]],
        concurrency: int = 2,
    ) -> None:
        self._queue = queue
        self._run = run
        self._loops = [
            asyncio.create_task(self._loop(), name=f"job consumer {i}") for i in range(concurrency)
        ]
        self._running: set[asyncio.Task[None]] = set()

    async def _loop(self) -> None:
        while True:
            job_id = await self._queue.take()
            try:
                # Its own task, so a stop can wait for a running job while
                # cancelling the idle loops at once.
                run = asyncio.create_task(self._guarded(job_id), name=f"job {job_id}")
                self._running.add(run)
                try:
                    await asyncio.shield(run)
                finally:
                    self._running.discard(run)
            finally:
                self._queue.done(job_id)

    async def _guarded(self, job_id: str) -> None:
        try:
            await self._run(job_id)
        except Exception:
            # The runner recorded the failure on the job; a consumer has
            # nobody else to tell, and must go on with the next job.
            log.exception("job %s crashed", job_id)

    async def close(self, grace_s: float = STOP_GRACE_S) -> None:
        """Stop: take nothing more, and cancel running jobs not done within ``grace_s``.

        A cancelled job is put back in the queue in the graph, and the next
        start runs it again.
        """
        running = list(self._running)
        for loop in self._loops:
            loop.cancel()
        if running:
            await asyncio.wait(running, timeout=grace_s)
        for task in running:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._loops, *running, return_exceptions=True)
