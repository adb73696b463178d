"""A job whose worker died is taken over about one lease later, not at arq's own timeout.

arq hands a job out again only once the dead worker's claim on it expires
(its job timeout: the time limit plus a grace, over ten minutes by default).
The graph knows much sooner, from a lease no one renews; workers sweep for
such jobs and deliver each again, once per lapse.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest
from arq.constants import in_progress_key_prefix

from hippograph.clock import utc_now
from hippograph.jobs import JobStatus
from hippograph.runtime import Runtime
from hippograph.settings import Settings
from tests.graphs import TestDatabase
from tests.jobs.conftest import memorize_only_settings
from tests.jobs.private_redis import PrivateRedis
from tests.jobs.support import (
    arq_redis,
    caro_session,
    queued_in_redis,
    run_worker_until_finished,
    submit_memorize,
)

pytestmark = pytest.mark.slow  # a redis-server of its own

LEASE_S = 3.0
# How long the dead worker's claim on the submission's delivery outlives it
# in this test: arq would deliver the job again only then.
ARQ_CLAIM_S = 600


@pytest.fixture
def settings(graph_db: TestDatabase, tmp_path: Path, redis_server: PrivateRedis) -> Settings:
    """Jobs on the test's Redis, with a lease short enough to lapse within the test; memorize
    queues no reflect run (the worker is stopped once the memorize job is done)."""
    return memorize_only_settings(graph_db, tmp_path, redis_server.url, lease_s=LEASE_S)


async def _claim_like_a_dead_worker(settings: Settings, runtime: Runtime, job_id: str) -> None:
    """What a worker that took the job's delivery and then died leaves behind.

    arq's claim on the delivery (the in-progress mark that keeps other
    workers off it until arq's timeout), and in the graph a run holding the
    job's lease that no one renews.
    """
    async with arq_redis(settings) as client:
        await client.psetex(f"{in_progress_key_prefix}{job_id}:0", ARQ_CLAIM_S * 1000, b"1")
    now = utc_now()
    started = await runtime.connection.store.jobs.start(
        job_id, now, now - timedelta(seconds=LEASE_S)
    )
    assert started is not None
    assert started.attempts == 1


async def _submitted_and_abandoned(settings: Settings, runtime: Runtime) -> str:
    """A memorize job, submitted through the API, whose worker died running it."""
    job_id = await submit_memorize(runtime, await caro_session(runtime))
    await _claim_like_a_dead_worker(settings, runtime, job_id)
    return job_id


async def test_a_lapsed_run_is_delivered_again_once_per_lapse(
    runtime: Runtime, settings: Settings
) -> None:
    job_id = await _submitted_and_abandoned(settings, runtime)
    jobs = runtime.services.jobs
    lease = timedelta(seconds=LEASE_S)
    # Within its lease the run is presumed alive: nothing is delivered.
    assert await jobs.redeliver_lapsed(lease) == []
    assert await queued_in_redis(settings) == 1  # the submission's, claimed
    await asyncio.sleep(LEASE_S + 0.5)
    # A process sweeping while it runs the job itself (its renewals were
    # late, not dead) does not take the job over from itself.
    assert await jobs.redeliver_lapsed(lease, running_here={job_id}) == []
    assert await queued_in_redis(settings) == 1
    # Lapsed: delivered again, and every later sweep of the same lapse (each
    # worker runs one) finds that delivery already queued and delivers nothing.
    first = await jobs.redeliver_lapsed(lease)
    assert [(run.job_id, run.attempt) for run in first] == [(job_id, 1)]
    assert await queued_in_redis(settings) == 2
    assert await jobs.redeliver_lapsed(lease) == []
    assert await queued_in_redis(settings) == 2


async def test_a_worker_takes_over_a_dead_workers_job_after_about_one_lease(
    runtime: Runtime, settings: Settings
) -> None:
    job_id = await _submitted_and_abandoned(settings, runtime)
    # Nothing else delivers it: the worker's own sweep must find the lapse.
    job, took = await run_worker_until_finished(settings, runtime, job_id)
    assert (job.status, job.attempts, job.error) == (JobStatus.SUCCEEDED, 2, None), job
    assert job.counts["messages"] == 6
    # Long before arq would have handed the submission's delivery out again.
    assert took < 60 < ARQ_CLAIM_S, took
    assert await runtime.services.jobs.redeliver_lapsed(timedelta(seconds=LEASE_S)) == []
    # The worker's /metrics counts the one delivery its sweeps made, however
    # many sweeps found the lapse before the takeover renewed the lease.
    redelivered = runtime.metrics.registry.get_sample_value("hippograph_jobs_redelivered_total")
    assert redelivered == 1
