"""A job starts once, however many workers are handed it at the same moment."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from graph.store import GraphConnection, GraphStore
from hippograph.jobs import Job, JobStatus
from tests.graphs import TestDatabase
from tests.support import T0, queued_job

ROUNDS = 25
LEASE = timedelta(seconds=30)


async def _start(worker: GraphConnection, job_id: str, gate: asyncio.Event) -> Job | None:
    await gate.wait()
    return await worker.store.jobs.start(job_id, T0, T0 - timedelta(minutes=10))


async def test_two_workers_released_at_once_start_a_job_exactly_once(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path
) -> None:
    async with graph_db.connections(tmp_path) as workers:
        started_twice = []
        for round_ in range(ROUNDS):
            job = await queued_job(store, T0 + timedelta(seconds=round_))
            gate = asyncio.Event()
            tasks = [asyncio.create_task(_start(w, job.id, gate)) for w in workers]
            await asyncio.sleep(0.01)  # both wait at the gate
            gate.set()
            outcomes = await asyncio.gather(*tasks)
            winners = [o for o in outcomes if o is not None]
            if len(winners) != 1:
                started_twice.append((job.id, len(winners)))
            stored = await store.jobs.get_jobs([job.id])
            assert stored[job.id].attempts == 1, stored[job.id]
        assert started_twice == []


async def _start_at_t0(store: GraphStore, job: Job) -> None:
    """Start ``job`` at T0 (attempt 1), with a lease of LEASE."""
    assert await store.jobs.start(job.id, T0, T0 - LEASE) is not None


async def _running(store: GraphStore) -> Job:
    """A job queued and then started at T0 (attempt 1), with a lease of LEASE."""
    job = await queued_job(store, T0)
    await _start_at_t0(store, job)
    return job


async def _taken_over(store: GraphStore, job_id: str, at: datetime) -> None:
    """Start the job again at ``at``, once its run's lease has lapsed: attempt 2 has it."""
    taken = await store.jobs.start(job_id, at, at - LEASE)
    assert taken is not None
    assert taken.attempts == 2


async def test_only_the_run_holding_the_lease_renews_it_and_a_renewal_keeps_it(
    store: GraphStore,
) -> None:
    job = await _running(store)
    renewed = T0 + timedelta(seconds=25)
    assert await store.jobs.renew(job.id, 1, renewed)
    # Past the start's lease but not the renewal's: still held.
    at = T0 + timedelta(seconds=40)
    assert await store.jobs.start(job.id, at, at - LEASE) is None
    # Past the renewal's lease: taken over, and the old run can no longer renew.
    at = renewed + LEASE + timedelta(seconds=1)
    await _taken_over(store, job.id, at)
    assert not await store.jobs.renew(job.id, 1, at)
    assert await store.jobs.renew(job.id, 2, at)
    await store.jobs.finish(job.id, 2, JobStatus.SUCCEEDED, at, {}, None, {})
    assert not await store.jobs.renew(job.id, 2, at)


async def test_a_run_taken_over_can_neither_finish_nor_requeue_the_job(
    store: GraphStore,
) -> None:
    # Run 1 stalls past its lease, run 2 takes the job over; run 1 then wakes
    # up and tries to record its outcome, or (stopping) to hand the job back.
    job = await _running(store)
    at = T0 + LEASE + timedelta(seconds=1)
    await _taken_over(store, job.id, at)

    assert await store.jobs.finish(job.id, 1, JobStatus.FAILED, at, {}, "stale", {}) is None
    assert not await store.jobs.requeue(job.id, 1, at)
    still = (await store.jobs.get_jobs([job.id]))[job.id]
    assert (still.status, still.attempts, still.error) == (JobStatus.RUNNING, 2, None)
    # Nor may a third delivery start it meanwhile: run 2's lease is live.
    assert await store.jobs.start(job.id, at, at - LEASE) is None

    done = await store.jobs.finish(job.id, 2, JobStatus.SUCCEEDED, at, {"n": 1}, None, {})
    assert done is not None
    assert done.status is JobStatus.SUCCEEDED
    assert not await store.jobs.requeue(job.id, 2, at)


async def test_a_stalled_run_racing_the_run_that_takes_over_does_not_both_win(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path
) -> None:
    # Run 1's finish, renewal or hand-back, at the moment run 2 takes over:
    # never a job marked finished, or queued, while run 2 works, nor run 1
    # renewing a lease it has lost. (A hand-back before the takeover is the
    # one order in which both succeed: the job is queued, then started.)
    async with graph_db.connections(tmp_path) as (stale, taker):
        await _race_the_takeover(store, stale, taker)


async def _race_the_takeover(
    store: GraphStore, stale: GraphConnection, taker: GraphConnection
) -> None:
    at = T0 + LEASE + timedelta(seconds=1)

    async def late(job_id: str, gate: asyncio.Event, what: str) -> bool:
        await gate.wait()
        jobs = stale.store.jobs
        if what == "finish":
            return await jobs.finish(job_id, 1, JobStatus.FAILED, at, {}, "stale", {}) is not None
        if what == "renew":
            return await jobs.renew(job_id, 1, at)
        return await jobs.requeue(job_id, 1, at)

    async def take(job_id: str, gate: asyncio.Event) -> bool:
        await gate.wait()
        return await taker.store.jobs.start(job_id, at, at - LEASE) is not None

    both = []
    for round_ in range(ROUNDS):
        what = ("finish", "renew", "requeue")[round_ % 3]
        job = await queued_job(store, T0 + timedelta(seconds=round_))
        await _start_at_t0(store, job)
        gate = asyncio.Event()
        tasks = [
            asyncio.create_task(late(job.id, gate, what)),
            asyncio.create_task(take(job.id, gate)),
        ]
        await asyncio.sleep(0.01)
        gate.set()
        late_won, took = await asyncio.gather(*tasks)
        after = (await store.jobs.get_jobs([job.id]))[job.id]
        undone = after.status is not JobStatus.RUNNING or after.attempts != 2
        if took and (undone or (late_won and what != "requeue")):
            both.append((what, after.status))
    assert both == []


async def test_lapsed_lists_the_running_jobs_no_one_renewed_for_a_lease(
    store: GraphStore,
) -> None:
    dead, alive, done, waiting = [
        await queued_job(store, T0 + timedelta(seconds=i)) for i in range(4)
    ]
    for job in (dead, alive, done):
        await _start_at_t0(store, job)
    renewed = T0 + timedelta(seconds=20)
    assert await store.jobs.renew(alive.id, 1, renewed)
    await store.jobs.finish(done.id, 1, JobStatus.SUCCEEDED, T0, {}, None, {})

    at = T0 + LEASE + timedelta(seconds=1)
    lapsed = await store.jobs.lapsed(at - LEASE)
    assert [(run.job_id, run.attempt, run.renewed_at) for run in lapsed] == [(dead.id, 1, T0)]
    # Once taken over, the job is live again under its next attempt.
    assert await store.jobs.start(dead.id, at, at - LEASE) is not None
    assert await store.jobs.lapsed(at - LEASE) == []
    later = renewed + LEASE + timedelta(seconds=1)
    assert [run.job_id for run in await store.jobs.lapsed(later - LEASE)] == [alive.id]
    # A queued job has no lease to lapse.
    assert waiting.id not in {run.job_id for run in await store.jobs.lapsed(later)}


async def test_queued_before_lists_jobs_queued_for_a_lease_and_one_sweep_stamps_each(
    store: GraphStore,
) -> None:
    waiting, stopped, failed = [
        await queued_job(store, T0 + timedelta(seconds=i)) for i in range(3)
    ]
    for job in (stopped, failed):
        await _start_at_t0(store, job)
    await store.jobs.finish(failed.id, 1, JobStatus.FAILED, T0, {}, "LLM away", {})
    # Not yet a lease in the queue: nothing.
    assert await store.jobs.queued_before(T0 - LEASE) == []

    at = T0 + LEASE + timedelta(seconds=1)
    found = await store.jobs.queued_before(at - LEASE)
    assert [(run.job_id, run.attempt, run.queued_at) for run in found] == [(waiting.id, 0, T0)]
    # Of two sweeps of the same moment, one marks it queued anew; a stamp of
    # another attempt (a run took it meanwhile) marks nothing.
    assert not await store.jobs.stamp_queued(waiting.id, 1, at - LEASE, at)
    assert [await store.jobs.stamp_queued(waiting.id, 0, at - LEASE, at) for _ in range(2)] == [
        True,
        False,
    ]
    assert await store.jobs.queued_before(at - LEASE) == []

    # A run put back in the queue (its runner stopping) and a failed job
    # submitted again are queued from that moment, not from their creation.
    assert await store.jobs.requeue(stopped.id, 1, at)
    resubmitted = replace(failed, created_at=at)
    assert (await store.jobs.submit(resubmitted))[1]
    assert await store.jobs.queued_before(at) == []
    later = at + LEASE + timedelta(seconds=1)
    found = await store.jobs.queued_before(later - LEASE)
    assert {(run.job_id, run.attempt, run.queued_at) for run in found} == {
        (waiting.id, 0, at),
        (stopped.id, 1, at),
        (failed.id, 1, at),
    }
    # A job a run took is no longer queued.
    assert await store.jobs.start(waiting.id, later, later - LEASE) is not None
    assert waiting.id not in {run.job_id for run in await store.jobs.queued_before(later)}
