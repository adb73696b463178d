"""Queue entries that are not jobs: each fails visibly, and the jobs behind them still run."""

from __future__ import annotations

import pickle
import time

import pytest
from arq import create_pool
from redis.asyncio import Redis

from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.settings import Settings
from jobs.arq_queue import dump_payload, load_payload, redis_settings
from tests.jobs.support import JOB, MEMORIZE, graphql, memorize_input, run_burst_worker

pytestmark = pytest.mark.slow  # a redis-server of its own


async def test_malformed_payloads_fail_visibly_and_the_queue_goes_on(
    runtime: Runtime, settings: Settings
) -> None:
    queue = settings.jobs.queue
    pool = await create_pool(
        redis_settings(settings.redis.url),
        job_serializer=dump_payload,
        job_deserializer=load_payload,
    )
    raw = Redis.from_url(settings.redis.url)
    try:
        bad = [
            await pool.enqueue_job("run_job", _queue_name=queue),  # no job id
            await pool.enqueue_job("run_job", 42, _queue_name=queue),  # not a string
            await pool.enqueue_job("run_job", "MATCH (n) DETACH DELETE n", _queue_name=queue),
            await pool.enqueue_job(
                "run_job", "job_01J00000000000000000000000", "x", _queue_name=queue
            ),
            await pool.enqueue_job("drop_everything", _queue_name=queue),  # no such function
        ]
        assert all(job is not None for job in bad)
        # Bytes that are not JSON, and a pickle (arq's default format, which
        # would run code on load): both refused before anything runs.
        now_ms = int(time.time() * 1000)
        for arq_id, payload in (
            ("garbage", b"\xff\x00 not json"),
            ("pickled", pickle.dumps({"f": "run_job", "a": [], "k": {}, "t": 1, "et": now_ms})),
        ):
            await raw.set(f"arq:job:{arq_id}", payload)
            await raw.zadd(queue, {arq_id: now_ms})

        await runtime.services.users.create_user(SETTINGS_ADMIN, "caro", "Caroline")
        session = await runtime.services.users.create_session(SETTINGS_ADMIN, "caro", "chat")
        async with graphql(runtime) as api:
            queued = (await api.ok(MEMORIZE, {"input": memorize_input(session.id)}))["memorize"]
            worker = await run_burst_worker(settings, runtime)
            done = (await api.ok(JOB, {"id": queued["job"]["id"]}))["job"]
        infos = [await job.result_info() for job in bad if job is not None]
    finally:
        await raw.aclose()
        await pool.aclose()

    # Seven refused, the real memorize job (and the reflect run it queued) done.
    assert (worker.jobs_failed, worker.jobs_complete) == (7, 2)
    assert done["status"] == "SUCCEEDED", done
    assert runtime.metrics.registry.get_sample_value("hippograph_jobs_rejected_total") == 4
    # Each refusal is on record in arq's results, with its reason.
    reasons = [str(info.result) if info is not None else "" for info in infos]
    assert all("job id" in r for r in reasons[:4]), reasons
    assert "not found" in reasons[4]
