"""The graph lease is the one owner of "is this job running": transports only deliver ids."""

from __future__ import annotations

from datetime import datetime, timedelta

from graph.store import GraphStore
from hippograph.ids import IdKind, new_id
from hippograph.jobs import Job, JobStatus
from hippograph.services.job_runner import JobResult, JobRunner
from hippograph.services.reflection import ReflectJob
from tests.support import T0

LEASE = timedelta(minutes=10)


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
    runner = JobRunner(store.jobs, handle, clock, LEASE)
    job = Job(
        id=new_id(IdKind.JOB, T0),
        status=JobStatus.QUEUED,
        user_ids=("ann",),
        params=ReflectJob(user_id="ann"),
        created_at=T0,
    )
    await store.jobs.submit(job)
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
