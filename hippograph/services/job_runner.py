"""Running background jobs: the graph lease decides whether a job runs, and records how it ended.

A runner (the in-process consumer, an arq worker) hands this a job id; the
job's record in the graph is the one owner of "is it running": ``start``
takes the lease (or finds the job finished, or running under a live lease,
and does nothing). The run renews its lease every third of its length, so a
job may run far longer than the lease (up to its own time limit), while a job
whose runner died is free to the next delivery once the lease runs out. A
run that finds it no longer holds the lease (another run took the job over
while this one could not renew) stops without recording anything: the job
is the other run's. The graph holds to that too: only the job's last attempt
may record how it ended, or put it back in the queue, so a run that stalled
past its lease and wakes up to finish cannot overwrite the run that took it
over. Transports only deliver ids, as often as they like.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Protocol

from hippograph.clock import Clock
from hippograph.errors import HippoError, Unavailable
from hippograph.events import NO_EVENTS, Announcer
from hippograph.ids import IdKind, require_id
from hippograph.jobs import Job, JobKind, JobStatus
from hippograph.logs import request_id
from hippograph.ports import ModelFailed, Usage
from hippograph.services.jobs import JobStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JobResult:
    """What a handler reports when its work is done."""

    counts: Mapping[str, int] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)


Handler = Callable[[Job], Awaitable[JobResult]]


class JobObserver(Protocol):
    """Told about every job a process runs (metrics)."""

    def job_finished(self, kind: JobKind, status: JobStatus, seconds: float) -> None: ...


@dataclass(eq=False)
class JobRunner:
    """Runs jobs by id under the graph lease, with one handler for every kind."""

    _store: JobStore
    _handle: Handler
    _clock: Clock
    _lease: timedelta
    # The longest one run may take (HIPPOGRAPH_JOBS__TIMEOUT_S).
    _time_limit: timedelta
    _observer: JobObserver | None = None
    _events: Announcer = NO_EVENTS
    # How many times a job's work is tried when the graph is unavailable or
    # contended (HIPPOGRAPH_JOBS__MAX_TRIES): such a failure is of the moment.
    _tries: int = 3
    _backoff_s: float = 0.5
    # Jobs whose run is in progress in this process (see ``in_progress``).
    _running: set[str] = field(default_factory=set, init=False)

    def in_progress(self) -> frozenset[str]:
        """The jobs this runner is running now.

        A lease sweep skips them: a run of this process that missed a renewal
        (its event loop held up past the lease) is alive, not dead, and a
        takeover from itself would only start the work again.
        """
        return frozenset(self._running)

    async def run(self, job_id: str) -> Job | None:
        """Do a job's work and record the outcome; None if it is not this call's to run.

        That is: unknown, finished, or running under a lease that has not run
        out (a second delivery of the same job); also None when the job stopped
        being this run's before it ended (another run took it over, or its user
        was deleted), and nothing was recorded. Expected failures (bad data,
        an LLM that keeps failing) are recorded on the job and not raised: a
        transport retrying them would fail the same way, and the job's record
        is where clients look. Submitting the same work again re-queues a
        failed job. Everything logged meanwhile carries ``job:<id>`` as its
        request id.
        """
        require_id(job_id, IdKind.JOB, "job_id")
        token = request_id.set(f"job:{job_id}")
        try:
            return await self._run(job_id)
        finally:
            request_id.reset(token)

    async def _run(self, job_id: str) -> Job | None:
        now = self._clock()
        job = await self._store.start(job_id, now, now - self._lease)
        if job is None:
            return None
        await self._events.job_changed(job)
        started = time.perf_counter()
        self._running.add(job_id)
        try:
            finished = await self._attempt(job)
        except Exception:
            # A crash, recorded as the job's failure before it is raised on:
            # the failures metrics must count are these first.
            self._observe(job, JobStatus.FAILED, started)
            raise
        finally:
            self._running.discard(job_id)
        if finished is None:
            return None
        self._observe(job, finished.status, started)
        return finished

    def _observe(self, job: Job, status: JobStatus, started: float) -> None:
        if self._observer is not None:
            self._observer.job_finished(job.kind, status, time.perf_counter() - started)

    async def _work(self, job: Job) -> JobResult:
        """The handler, tried again after a failure of the moment.

        Another tenant's many small writes can out-race one large write for
        the whole of the graph's own retry budget (``Contended``), or the
        graph can be away for a moment (``Unavailable``): nothing of the
        failed transaction was written and the handlers resume from what is
        (memorize re-reads the messages no MemUnit holds yet; forget goes on
        from the job's cursor, read again, since the pages before the failure
        committed and moved it), so the work is run again, after a jittered,
        growing pause, up to ``_tries`` times.
        """
        for attempt in range(1, self._tries + 1):
            try:
                if attempt > 1:
                    job = (await self._store.get_jobs([job.id])).get(job.id, job)
                return await self._handle(job)
            except Unavailable as exc:
                if attempt == self._tries or not exc.again:
                    raise
                pause = min(10.0, self._backoff_s * 2 ** (attempt - 1)) * random.uniform(0.5, 1.5)
                log.warning(
                    "job %s: %s; trying again in %.1f s (%d of %d)",
                    job.id,
                    exc.message,
                    pause,
                    attempt + 1,
                    self._tries,
                )
                await asyncio.sleep(pause)
        raise AssertionError("unreachable: the last try returns or raises")

    async def _hold(self, job: Job) -> None:
        """Renew ``job``'s lease every third of it; return once it is lost.

        Lost: the graph says another run holds it, or no renewal has gone
        through for a whole lease (the graph was away), after which another
        delivery may already have taken the job over.
        """
        lease_s = self._lease.total_seconds()
        renewed = time.monotonic()
        while time.monotonic() - renewed < lease_s:
            await asyncio.sleep(lease_s / 3)
            try:
                if not await self._store.renew(job.id, job.attempts, self._clock()):
                    return
            except Unavailable as exc:
                log.warning("job %s: lease not renewed: %s", job.id, exc.message)
                continue
            renewed = time.monotonic()

    async def _held(self, job: Job) -> JobResult | None:
        """The work while its lease is renewed; None if the lease was lost first."""
        work = asyncio.create_task(self._work(job))
        hold = asyncio.create_task(self._hold(job))
        try:
            await asyncio.wait((work, hold), return_when=asyncio.FIRST_COMPLETED)
        finally:
            # Whichever is left (both, when this run is cancelled) stops here.
            for task in (work, hold):
                task.cancel()
            await asyncio.gather(work, hold, return_exceptions=True)
        if work.done() and not work.cancelled():
            return work.result()
        return None

    async def _attempt(self, job: Job) -> Job | None:
        job_id = job.id
        limit = asyncio.timeout(self._time_limit.total_seconds())
        try:
            async with limit:
                result = await self._held(job)
            if result is None:
                log.warning("job %s: lease lost to another run; this run stops", job_id)
                return None
        except TimeoutError as exc:
            if not limit.expired():
                # The work's own TimeoutError (a library's deadline), not the
                # job's limit: a crash, which must not be reported as the limit.
                await self._crashed(job, exc)
                raise
            message = f"timed out after {self._time_limit.total_seconds():g} s"
            log.warning("job %s %s", job_id, message)
            return await self._finish(job, JobStatus.FAILED, {}, message, {})
        except asyncio.CancelledError:
            # The runner is stopping (SIGTERM, shutdown): back to the queue, so
            # the next runner (or the next start) takes it at once.
            await asyncio.shield(self._store.requeue(job_id, job.attempts, self._clock()))
            raise
        except HippoError as exc:
            log.warning("job %s failed: %s", job_id, exc.message)
            # A model's failure says what it spent: the job's record keeps it.
            spent = exc.usage.model_dump() if isinstance(exc, ModelFailed) else {}
            return await self._finish(job, JobStatus.FAILED, {}, exc.message, spent)
        except Exception as exc:
            await self._crashed(job, exc)
            raise
        return await self._finish(
            job, JobStatus.SUCCEEDED, result.counts, None, result.usage.model_dump()
        )

    async def _crashed(self, job: Job, exc: Exception) -> None:
        """Record an unexpected error as the job's failure; the caller raises it on."""
        log.exception("job %s crashed", job.id)
        await self._finish(job, JobStatus.FAILED, {}, f"internal error: {exc!r}", {})

    async def _finish(
        self,
        job: Job,
        status: JobStatus,
        counts: Mapping[str, int],
        error: str | None,
        usage: Mapping[str, int],
    ) -> Job | None:
        """Record how this run ended; None if the record is not this run's to write:
        the job vanished (its user was deleted) or, after this run stalled past its
        lease, another run took it over and is the one that records."""
        finished = await self._store.finish(
            job.id, job.attempts, status, self._clock(), counts, error, usage
        )
        if finished is None:
            log.warning(
                "job %s: not recorded as %s, this run no longer holds it", job.id, status.value
            )
            return None
        await self._events.job_changed(finished)
        return finished

    async def resume_orphans(self) -> list[str]:
        """Jobs a stopped single-process runner left queued or running, queued again.

        Only for the in-process runner: with arq, other workers may be running
        them, and their leases decide.
        """
        await self._store.requeue_running(self._clock())
        return await self._store.unfinished()
