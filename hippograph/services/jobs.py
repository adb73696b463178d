"""Submitting, running and reporting background jobs, whatever runs them.

The service owns a job's life (its record in the graph); a ``JobQueue``
decides only where and when ``run`` is called: an asyncio task in this
process (embedded mode) or an arq worker (server mode). Each kind of job has
a handler, registered by the service that knows how to do the work.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.errors import HippoError, NotFound, Unavailable
from hippograph.extraction.schema import Usage
from hippograph.ids import IdKind, require_id
from hippograph.jobs import Job, JobKind, JobStatus
from hippograph.logs import request_id
from hippograph.ports import JobObserver, JobQueue, JobStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JobResult:
    """What a handler reports when its work is done."""

    counts: Mapping[str, int] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)


Handler = Callable[[Job], Awaitable[JobResult]]


class JobService:
    """Jobs for principals (submit, look up) and for runners (run)."""

    def __init__(self, store: JobStore, clock: Clock, lease: timedelta) -> None:
        self._store = store
        self._clock = clock
        self._lease = lease
        self._handlers: dict[JobKind, Handler] = {}
        self._queue: JobQueue | None = None
        self._observers: list[JobObserver] = []

    def register(self, kind: JobKind, handler: Handler) -> None:
        """Say who does jobs of ``kind``."""
        self._handlers[kind] = handler

    def attach(self, queue: JobQueue) -> None:
        """Where submitted jobs go (set once the process knows its run mode)."""
        self._queue = queue

    def observe(self, observer: JobObserver) -> None:
        """Tell ``observer`` about every job this process runs."""
        self._observers.append(observer)

    async def submit(
        self, job_id: str, kind: JobKind, user_ids: Sequence[str], params: Mapping[str, Any]
    ) -> Job:
        """Record a job and queue it; the same id again returns the first job (no new work)."""
        if self._queue is None:
            raise Unavailable("no job runner is configured in this process")
        job = Job(
            id=job_id,
            kind=kind,
            status=JobStatus.QUEUED,
            user_ids=tuple(user_ids),
            params=dict(params),
            created_at=self._clock(),
        )
        stored, needs_run = await self._store.submit(job)
        if needs_run:
            try:
                await self._queue.enqueue(stored.id, stored.attempts)
            except Unavailable as exc:
                # Left "queued", the record would make every resubmission think
                # the job is on its way; failed, the next submission re-queues it.
                await self._store.finish(
                    stored.id, JobStatus.FAILED, self._clock(), {}, exc.message, {}
                )
                raise
        return stored

    async def get_job(self, principal: Principal, job_id: str) -> Job:
        """A job the principal may see: every user it concerns is theirs."""
        require_id(job_id, IdKind.JOB, "id")
        job = (await self._store.get_jobs([job_id])).get(job_id)
        if job is None or not all(principal.can_access(u) for u in job.user_ids):
            raise NotFound("job", job_id)
        return job

    async def run(self, job_id: str) -> Job | None:
        """Do a job's work and record the outcome; a finished or unknown job is left alone.

        Expected failures (bad data, an LLM that keeps failing) are recorded
        on the job and not raised: a runner retrying them would fail the same
        way, and the job's record is where clients look. Submitting the same
        work again re-queues a failed job. Everything logged meanwhile carries
        ``job:<id>`` as its request id.
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
        started = time.perf_counter()
        finished = await self._attempt(job)
        for observer in self._observers:
            observer.job_finished(job.kind, finished.status, time.perf_counter() - started)
        return finished

    async def _attempt(self, job: Job) -> Job:
        job_id = job.id
        handler = self._handlers.get(job.kind)
        try:
            if handler is None:
                raise Unavailable(f"no handler for {job.kind.value} jobs in this process")
            # Our own deadline, inside the runner's: a job past its lease is
            # recorded as failed (and so can be resubmitted), never left running.
            result = await asyncio.wait_for(handler(job), self._lease.total_seconds())
        except TimeoutError:
            message = f"timed out after {self._lease.total_seconds():g} s"
            log.warning("job %s %s", job_id, message)
            return await self._finish(job, JobStatus.FAILED, {}, message, {})
        except asyncio.CancelledError:
            # The runner is stopping (SIGTERM, shutdown): back to the queue, so
            # the next runner (or the next start) takes it at once.
            await asyncio.shield(self._store.requeue(job_id))
            raise
        except HippoError as exc:
            log.warning("job %s failed: %s", job_id, exc.message)
            return await self._finish(job, JobStatus.FAILED, {}, exc.message, {})
        except Exception as exc:
            log.exception("job %s crashed", job_id)
            await self._finish(job, JobStatus.FAILED, {}, f"internal error: {exc!r}", {})
            raise
        return await self._finish(
            job, JobStatus.SUCCEEDED, result.counts, None, result.usage.model_dump()
        )

    async def _finish(
        self,
        job: Job,
        status: JobStatus,
        counts: Mapping[str, int],
        error: str | None,
        usage: Mapping[str, int],
    ) -> Job:
        finished = await self._store.finish(job.id, status, self._clock(), counts, error, usage)
        # None only if the record vanished meanwhile (its user was deleted).
        return finished if finished is not None else replace(job, status=status, error=error)

    async def resume_orphans(self) -> list[str]:
        """Jobs a stopped single-process runner left queued or running, queued again.

        Only for the in-process runner: with arq, other workers may be running
        them, and their leases decide.
        """
        await self._store.requeue_running()
        return await self._store.unfinished()
