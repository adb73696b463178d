"""Submitting background jobs and looking them up, whatever runs them.

A job's record in the graph is its life; a ``JobQueue`` is only how its id
reaches a runner (``hippograph.services.job_runner``): a queue this process
drains (embedded mode) or Redis, drained by arq workers (server mode). The
service is built complete, with its store and its queue.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.errors import NotFound, Unavailable
from hippograph.events import NO_EVENTS, Announcer
from hippograph.ids import IdKind, require_id
from hippograph.jobs import Delivery, Job, JobStatus, LapsedRun, QueuedRun

if TYPE_CHECKING:
    # Type only: the payloads are declared beside the services that submit
    # this one, which import it.
    from hippograph.services.job_payloads import JobPayload

log = logging.getLogger(__name__)


class JobStore(Protocol):
    """Job records (graph/jobs.py)."""

    async def submit(self, job: Job) -> tuple[Job, bool]: ...
    async def get_jobs(self, ids: list[str]) -> dict[str, Job]: ...
    async def start(self, job_id: str, now: datetime, stale_before: datetime) -> Job | None: ...
    async def renew(self, job_id: str, attempt: int, now: datetime) -> bool: ...
    async def requeue(self, job_id: str, attempt: int, now: datetime) -> bool: ...
    async def requeue_running(self, now: datetime) -> int: ...
    async def finish(
        self,
        job_id: str,
        attempt: int,
        status: JobStatus,
        now: datetime,
        counts: Mapping[str, int],
        error: str | None,
        usage: Mapping[str, int],
    ) -> Job | None: ...
    async def unfinished(self, limit: int = 1000) -> list[str]: ...
    async def lapsed(self, stale_before: datetime, limit: int = 100) -> list[LapsedRun]: ...
    async def queued_before(self, stale_before: datetime, limit: int = 100) -> list[QueuedRun]: ...
    async def stamp_queued(
        self, job_id: str, attempt: int, stale_before: datetime, now: datetime
    ) -> bool: ...


class JobQueue(Protocol):
    """How a submitted job's id reaches a runner: a transport, it decides nothing."""

    async def enqueue(self, delivery: Delivery) -> bool:
        """Have the job run soon; False if that delivery was already queued.

        Enqueueing a queued job again is harmless: it is not queued twice.
        """
        ...

    async def holds(self, run: QueuedRun) -> bool:
        """Whether a delivery of the queued job ``run`` is waiting or being run.

        The deliveries a transport knows of for it: its submission's (or a
        resubmission's) under its attempt, the interrupted delivery of its
        last run, and a sweep's of its ``queued_at``.
        """
        ...


class JobService:
    """Jobs for principals and services: submit, look up."""

    def __init__(
        self, store: JobStore, queue: JobQueue, clock: Clock, events: Announcer = NO_EVENTS
    ) -> None:
        self._store = store
        self._queue = queue
        self._clock = clock
        self._events = events

    async def submit(self, job_id: str, user_ids: Sequence[str], work: JobPayload) -> Job:
        """Record a job and queue it; the same id again returns the first job (no new work)."""
        job = Job(
            id=job_id,
            status=JobStatus.QUEUED,
            user_ids=tuple(user_ids),
            params=work,
            created_at=self._clock(),
        )
        stored, needs_run = await self._store.submit(job)
        if needs_run:
            try:
                await self._queue.enqueue(Delivery(stored.id, stored.attempts))
            except Unavailable as exc:
                # Left "queued", the record would make every resubmission think
                # the job is on its way; failed, the next submission re-queues it.
                failed = await self._store.finish(
                    stored.id, stored.attempts, JobStatus.FAILED, self._clock(), {}, exc.message, {}
                )
                if failed is not None:
                    await self._events.job_changed(failed)
                raise
            await self._events.job_changed(stored)
        return stored

    async def redeliver_lapsed(
        self, lease: timedelta, *, running_here: Collection[str] = ()
    ) -> list[LapsedRun]:
        """Deliver again every running job whose runner has not renewed its lease for ``lease``.

        Its runner died or froze. The transport's own redelivery of the job
        (arq's, once its job timeout has passed) comes much later; this one
        lets the next free runner take the job over (the graph's lease
        decides, ``start``) about one lease after the runner stopped. Jobs in
        ``running_here`` (the sweeping process's own runs, alive if late) are
        left alone. Returns the runs this call delivered again: every
        worker sweeps, and a lapse another sweep already queued is neither
        queued nor logged again.
        """
        delivered = []
        for run in await self._store.lapsed(self._clock() - lease):
            if run.job_id in running_here:
                continue
            if not await self._queue.enqueue(
                Delivery(run.job_id, run.attempt, lapsed_at=run.renewed_at)
            ):
                continue
            delivered.append(run)
            log.info(
                "job %s: run %d stopped renewing its lease at %s; delivered again for "
                "another runner to take over",
                run.job_id,
                run.attempt,
                run.renewed_at.isoformat(),
            )
        return delivered

    async def redeliver_queued(self, lease: timedelta) -> list[QueuedRun]:
        """Deliver again every job queued for ``lease`` with no delivery on its way.

        The graph's record and the transport's entry are two writes: a process
        that dies between them (after the graph's commit, before Redis's)
        leaves a job queued that nothing will deliver, and so does a transport
        that gave up on every delivery it had (arq fails a delivery whose
        tries ran out without running it). A job whose delivery is still
        waiting (a long queue) is left alone. Of workers sweeping at once, the
        one whose graph write marks the job queued anew delivers it
        (``stamp_queued``), so a job is delivered once per lease at most.
        Returns the jobs this call delivered.
        """
        now = self._clock()
        delivered = []
        for run in await self._store.queued_before(now - lease):
            if await self._queue.holds(run):
                continue
            if not await self._store.stamp_queued(run.job_id, run.attempt, now - lease, now):
                continue  # another sweep delivered it, or a run took it
            await self._queue.enqueue(Delivery(run.job_id, run.attempt, queued_at=now))
            delivered.append(run)
            log.warning(
                "job %s: queued since %s with no delivery on its way; delivered again",
                run.job_id,
                run.queued_at.isoformat(),
            )
        return delivered

    async def get_job(self, principal: Principal, job_id: str) -> Job:
        """A job the principal may see: every user it concerns is theirs."""
        require_id(job_id, IdKind.JOB, "id")
        job = (await self._store.get_jobs([job_id])).get(job_id)
        if job is None or not all(principal.can_access(u) for u in job.user_ids):
            raise NotFound("job", job_id)
        return job
