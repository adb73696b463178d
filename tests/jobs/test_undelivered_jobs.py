"""A job queued in the graph with no delivery in Redis is delivered again by the workers.

Submitting writes twice: the job's record to the graph, then its delivery to
Redis. A process that dies between the two leaves a queued job nothing
delivers; so does arq giving up on a delivery without running it (its tries
spent on stops that landed before the job's function began). The workers'
sweep finds such a job once it has been queued for a lease.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest
from arq.constants import retry_key_prefix
from arq.jobs import Job as ArqJob

from hippograph.jobs import Delivery, Job, JobStatus
from hippograph.runtime import Runtime
from hippograph.settings import Settings
from jobs.arq_queue import load_payload
from tests.graphs import TestDatabase
from tests.jobs.conftest import memorize_only_settings
from tests.jobs.private_redis import PrivateRedis
from tests.jobs.support import (
    MEMORIZE,
    arq_redis,
    caro_session,
    graphql,
    memorize_input,
    queued_in_redis,
    run_worker_until_finished,
    submit_memorize,
)

pytestmark = pytest.mark.slow  # a redis-server of its own

LEASE_S = 2.0


@pytest.fixture
def settings(graph_db: TestDatabase, tmp_path: Path, redis_server: PrivateRedis) -> Settings:
    """Jobs on the test's Redis, with a short lease; memorize queues no reflect run."""
    return memorize_only_settings(graph_db, tmp_path, redis_server.url, lease_s=LEASE_S)


async def _stored(runtime: Runtime, job_id: str) -> Job:
    return (await runtime.connection.store.jobs.get_jobs([job_id]))[job_id]


def _undelivered(runtime: Runtime) -> float | None:
    return runtime.metrics.registry.get_sample_value("hippograph_jobs_undelivered_total")


async def test_a_job_whose_submitter_died_before_redis_is_run_about_one_lease_later(
    runtime: Runtime, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = await caro_session(runtime)
    # The submitting request dies after the graph's commit, inside the
    # enqueue (a process stopping, a request cancelled): nothing reaches Redis.
    reached = asyncio.Event()
    submitted: list[str] = []

    async def never(delivery: Delivery) -> bool:
        submitted.append(delivery.job_id)
        reached.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    with monkeypatch.context() as patch:
        patch.setattr(runtime.queue, "enqueue", never)
        async with graphql(runtime) as api:
            request = asyncio.create_task(api.ok(MEMORIZE, {"input": memorize_input(session_id)}))
            await asyncio.wait_for(reached.wait(), 30)
            request.cancel()
            await asyncio.gather(request, return_exceptions=True)
    (job_id,) = submitted
    assert (await _stored(runtime, job_id)).status is JobStatus.QUEUED
    assert await queued_in_redis(settings) == 0

    job, took = await run_worker_until_finished(settings, runtime, job_id)
    assert (job.status, job.attempts, job.error) == (JobStatus.SUCCEEDED, 1, None), job
    assert job.counts["messages"] == 6
    assert took < 30, took
    assert _undelivered(runtime) == 1
    assert await runtime.services.jobs.redeliver_queued(timedelta(seconds=LEASE_S)) == []


async def test_a_waiting_delivery_is_left_alone_and_one_arq_gave_up_on_is_replaced(
    runtime: Runtime, settings: Settings
) -> None:
    job_id = await submit_memorize(runtime, await caro_session(runtime))
    jobs = runtime.services.jobs
    lease = timedelta(seconds=LEASE_S)
    # Queued for longer than a lease behind a long queue: its delivery waits
    # in Redis, and the sweep adds none.
    await asyncio.sleep(LEASE_S + 0.5)
    assert await jobs.redeliver_queued(lease) == []
    assert await queued_in_redis(settings) == 1

    # Every try of the delivery spent (stops that landed before the job's
    # function ran): arq fails it at its next pickup without running it.
    async with arq_redis(settings) as client:
        await client.set(f"{retry_key_prefix}{job_id}:0", settings.jobs.max_tries)
    job, took = await run_worker_until_finished(settings, runtime, job_id)
    assert (job.status, job.attempts, job.error) == (JobStatus.SUCCEEDED, 1, None), job
    assert took < 30, took
    assert _undelivered(runtime) == 1
    async with arq_redis(settings) as client:
        delivery = ArqJob(
            f"{job_id}:0", client, _queue_name=settings.jobs.queue, _deserializer=load_payload
        )
        spent = await delivery.result_info()
    assert spent is not None
    assert not spent.success
    assert "max 3 retries exceeded" in str(spent.result)
