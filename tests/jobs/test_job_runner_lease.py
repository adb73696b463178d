"""The graph lease is the one owner of "is this job running": transports only deliver ids."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest

from graph.store import GraphStore
from hippograph.clock import utc_now
from hippograph.jobs import Job, JobKind, JobStatus
from hippograph.services.job_runner import JobResult, JobRunner
from tests.support import T0, queued_job

LEASE = timedelta(minutes=10)


# Real time for the renewing runs: the lease is renewed every third of it.
SHORT_LEASE = timedelta(seconds=0.3)


class _Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


async def test_a_delivery_runs_a_job_only_when_its_lease_is_not_live(store: GraphStore) -> None:
    ran: list[str] = []

    async def handle(job: Job) -> JobResult:
        ran.append(job.id)
        return JobResult(counts={"reflections": 1})

    clock = _Clock()
    runner = JobRunner(store.jobs, handle, clock, LEASE, LEASE)
    job = await queued_job(store)
    # A first delivery took the lease (its runner is busy, or died) at T0.
    assert await store.jobs.start(job.id, T0, T0 - LEASE) is not None

    # Delivered again while that lease is live (arq redelivering, a second
    # worker): not this delivery's to run.
    clock.now = T0 + LEASE - timedelta(seconds=1)
    assert await runner.run(job.id) is None
    assert ran == []

    # Past the lease, the next delivery takes it over, as one more attempt.
    clock.now = T0 + LEASE + timedelta(seconds=1)
    done = await runner.run(job.id)
    assert done is not None
    assert (done.status, done.attempts, ran) == (JobStatus.SUCCEEDED, 2, [job.id])

    # Finished: any later delivery is a no-op.
    assert await runner.run(job.id) is None
    assert ran == [job.id]


async def test_a_run_that_woke_after_losing_its_lease_records_nothing(store: GraphStore) -> None:
    # The whole process stalled (a pause, a frozen VM) for longer than the
    # lease: another worker took the job over, and this run, waking up, ends
    # before its next renewal would have told it so.
    job = await queued_job(store)
    later = T0 + LEASE + timedelta(seconds=1)

    async def handle(job: Job) -> JobResult:
        assert await store.jobs.start(job.id, later, later - LEASE) is not None
        return JobResult(counts={"reflections": 1})

    runner = JobRunner(store.jobs, handle, _Clock(), LEASE, LEASE)
    assert await runner.run(job.id) is None
    taken = (await store.jobs.get_jobs([job.id]))[job.id]
    assert (taken.status, taken.attempts, taken.counts) == (JobStatus.RUNNING, 2, {})


async def test_a_run_longer_than_its_lease_renews_it_and_keeps_the_job(store: GraphStore) -> None:
    async def handle(job: Job) -> JobResult:
        await asyncio.sleep(SHORT_LEASE.total_seconds() * 4)
        return JobResult(counts={"reflections": 1})

    first = JobRunner(store.jobs, handle, utc_now, SHORT_LEASE, timedelta(minutes=1))
    second = JobRunner(store.jobs, handle, utc_now, SHORT_LEASE, timedelta(minutes=1))
    job = await queued_job(store)
    running = asyncio.create_task(first.run(job.id))
    # Twice the lease after the start: without renewals it would have run out.
    await asyncio.sleep(SHORT_LEASE.total_seconds() * 2)
    assert await second.run(job.id) is None
    # Each runner knows the runs it holds (a lease sweep leaves them alone).
    assert (first.in_progress(), second.in_progress()) == (frozenset({job.id}), frozenset())
    done = await running
    assert done is not None
    assert (done.status, done.attempts) == (JobStatus.SUCCEEDED, 1)
    assert first.in_progress() == frozenset()


async def test_a_run_that_lost_its_lease_stops_and_records_nothing(store: GraphStore) -> None:
    stopped = asyncio.Event()

    async def handle(job: Job) -> JobResult:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            stopped.set()
            raise
        return JobResult()

    runner = JobRunner(store.jobs, handle, utc_now, SHORT_LEASE, timedelta(minutes=1))
    job = await queued_job(store)
    running = asyncio.create_task(runner.run(job.id))
    await asyncio.sleep(SHORT_LEASE.total_seconds() / 2)
    # Another run takes the job over (as after a renewal the graph never saw).
    now = utc_now()
    assert await store.jobs.start(job.id, now, now + timedelta(seconds=1)) is not None
    assert await asyncio.wait_for(running, 5) is None
    assert stopped.is_set()
    stored = (await store.jobs.get_jobs([job.id]))[job.id]
    # The job is the other run's: still running, its attempt, nothing finished.
    assert (stored.status, stored.attempts, stored.finished_at) == (JobStatus.RUNNING, 2, None)


async def test_a_run_past_its_time_limit_fails_however_often_it_renewed(
    store: GraphStore,
) -> None:
    async def handle(job: Job) -> JobResult:
        await asyncio.sleep(60)
        return JobResult()

    runner = JobRunner(store.jobs, handle, utc_now, SHORT_LEASE, timedelta(seconds=1))
    job = await queued_job(store)
    done = await asyncio.wait_for(runner.run(job.id), 10)
    assert done is not None
    assert (done.status, done.error) == (JobStatus.FAILED, "timed out after 1 s")


async def test_a_job_that_crashes_is_recorded_failed_and_its_lease_let_go(
    store: GraphStore, caplog: pytest.LogCaptureFixture
) -> None:
    # A bug in a handler: the job must not stay "running" (every later
    # delivery would wait out its lease) and the error must reach the logs.
    async def handle(job: Job) -> JobResult:
        raise RuntimeError("boom")

    job = await queued_job(store)
    observed: list[tuple[JobKind, JobStatus]] = []

    class Observer:
        def job_finished(self, kind: JobKind, status: JobStatus, seconds: float) -> None:
            observed.append((kind, status))

    runner = JobRunner(store.jobs, handle, utc_now, LEASE, LEASE, Observer())
    with pytest.raises(RuntimeError, match="boom"):
        await runner.run(job.id)
    assert observed == [(job.kind, JobStatus.FAILED)]  # the metrics count it
    failed = (await store.jobs.get_jobs([job.id]))[job.id]
    assert (failed.status, failed.error) == (
        JobStatus.FAILED,
        "internal error: RuntimeError('boom')",
    )
    assert f"job {job.id} crashed" in caplog.text
    assert await runner.run(job.id) is None  # finished: a later delivery is a no-op


async def test_a_timeout_inside_the_work_is_a_crash_not_the_jobs_time_limit(
    store: GraphStore,
) -> None:
    # A library's own deadline raises TimeoutError too; reported as the job's
    # limit it would send the reader after the wrong setting.
    async def handle(job: Job) -> JobResult:
        raise TimeoutError("the driver's deadline")

    job = await queued_job(store)
    runner = JobRunner(store.jobs, handle, utc_now, LEASE, LEASE)
    with pytest.raises(TimeoutError):
        await runner.run(job.id)
    failed = (await store.jobs.get_jobs([job.id]))[job.id]
    assert (failed.status, failed.error) == (
        JobStatus.FAILED,
        'internal error: TimeoutError("the driver\'s deadline")',
    )
