"""arq's worker, made to stop cleanly wherever a stop finds a job.

On a stop (SIGTERM, SIGINT, or ``close()`` without signal handlers) arq
cancels the task of every job it runs, then gathers those tasks without
``return_exceptions``. A job whose function is running takes the
cancellation itself: the runner puts the job back in the graph and arq counts
a retry. But a job cancelled in arq's own bookkeeping — the reads before the
function starts, or the shielded write of the outcome after it returned —
raises ``CancelledError`` out of ``close()``. The process then exits with a
traceback, ``on_shutdown`` never runs (the runtime and its lease sweep are
dropped with the loop), and the outcome's write, still running under its
shield, is destroyed half done.

And without signal handlers (a worker run in another program's loop, as
the tests run it), ``close()`` cancels arq's poll loop but closes the Redis
pool without waiting for it: the loop's last commands then open connections
of a pool already closed, which no one closes. Its Redis client is
:mod:`jobs.redis_pool`'s, because that cancel most often lands inside the
transaction that claims a queued id, and redis-py 5 would lose that
transaction's connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import Any

from arq.worker import Worker

from jobs.redis_pool import connect

log = logging.getLogger(__name__)
# How long a stop waits for arq's write of a job's outcome (a few Redis commands).
WRITE_GRACE_S = 10.0


class CleanStopWorker(Worker):
    """An arq ``Worker`` whose job tasks end quietly on a stop, their outcome written."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The shielded writes of each job's outcome still in flight, by arq job id.
        self._writing: dict[str, asyncio.Task[Any]] = {}

    async def main(self) -> None:
        """arq's worker loop, on a client of :mod:`jobs.redis_pool` unless given a pool."""
        if self._pool is None and self.redis_settings is not None:
            self._pool = await connect(
                self.redis_settings,
                job_serializer=self.job_serializer,
                job_deserializer=self.job_deserializer,
                default_queue_name=self.queue_name,
                expires_extra_ms=self.expires_extra_ms,
            )
        await super().main()

    async def close(self) -> None:
        """arq's close, which closes the Redis pool only once the poll loop has ended."""
        main = self.main_task
        if not self._handle_signals and main is not None and not main.done():
            main.cancel()
            # Bounded: the loop's cleanup is a command or two, but Redis may hang.
            await asyncio.wait({main}, timeout=WRITE_GRACE_S)
        await super().close()

    async def run_job(self, job_id: str, score: int) -> None:
        """arq's run of one delivery; a stop that lands in arq's bookkeeping ends it quietly."""
        try:
            await super().run_job(job_id, score)
        except asyncio.CancelledError:
            write = self._writing.get(job_id)
            if write is None:
                # Cancelled in arq's reads before the function ran: arq's
                # in-progress mark expires and the delivery is handed out
                # again; the graph's record of the job decides what is left.
                log.info(
                    "stopping: arq's delivery %s ended before its outcome was recorded; "
                    "arq will deliver it again",
                    job_id,
                )
                return
            # The function returned and arq is recording it: let that finish,
            # or arq would hand the delivery out again at its timeout. close()
            # cancels again when arq handles no signals, and a second signal
            # may too: the wait goes on, up to a bound (Redis may hang).
            deadline = asyncio.get_running_loop().time() + WRITE_GRACE_S
            while not write.done():
                left = deadline - asyncio.get_running_loop().time()
                if left <= 0:
                    log.warning(
                        "stopping: arq's write of job %s's outcome took over %g s; arq "
                        "will deliver the job again, and the graph's record of it decides",
                        job_id,
                        WRITE_GRACE_S,
                    )
                    return
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait({write}, timeout=left)

    async def finish_job(self, job_id: str, *args: Any, **kwargs: Any) -> None:
        """arq's write of a job's outcome, known to :meth:`run_job` while it runs."""
        await self._written(job_id, super().finish_job(job_id, *args, **kwargs))

    async def finish_failed_job(self, job_id: str, *args: Any, **kwargs: Any) -> None:
        """arq's write of a failed job's outcome, known to :meth:`run_job` while it runs."""
        await self._written(job_id, super().finish_failed_job(job_id, *args, **kwargs))

    async def _written(self, job_id: str, write: Awaitable[None]) -> None:
        # arq awaits these under asyncio.shield, so this runs as a task of its
        # own, which the job's task waits for when a stop cancels it.
        task = asyncio.current_task()
        if task is not None:
            self._writing[job_id] = task
        try:
            await write
        finally:
            self._writing.pop(job_id, None)
