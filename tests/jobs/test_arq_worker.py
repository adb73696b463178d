"""Server mode on a real Redis: the API queues memorize jobs, a burst worker runs them once.

And when Redis is not there, goes away, or hangs (paused with CLIENT PAUSE,
which holds every client's commands: a Redis stuck in a long script or on a
slow disk), the API says so and loses nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from redis.asyncio import Redis

from graph.embedded import free_port
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.errors import Unavailable
from hippograph.jobs import Delivery
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memories import NewMemory
from hippograph.settings import Settings
from tests.graphs import TestDatabase
from tests.jobs.conftest import arq_settings
from tests.jobs.private_redis import PrivateRedis
from tests.jobs.support import (
    JOB,
    MEMORIZE,
    SEARCH,
    caro_session,
    graphql,
    memorize_input,
    queued_in_redis,
    run_burst_worker,
)

pytestmark = pytest.mark.slow  # a redis-server of its own


async def test_a_burst_worker_runs_a_queued_memorize_once(
    runtime: Runtime, settings: Settings
) -> None:
    session_id = await caro_session(runtime)
    memories = runtime.connection.store.memories
    async with graphql(runtime) as api:
        queued = (await api.ok(MEMORIZE, {"input": memorize_input(session_id)}))["memorize"]
        assert queued["__typename"] == "Memorized", queued
        assert queued["created"] == 6  # messages are stored at once, whatever runs the job
        job_id = queued["job"]["id"]
        # No worker yet: the job waits in Redis and nothing is built.
        assert queued["job"]["status"] == "QUEUED"
        assert await queued_in_redis(settings) == 1
        assert (await api.ok(JOB, {"id": job_id}))["job"]["status"] == "QUEUED"
        assert await memories.count("caro") == 0

        worker = await run_burst_worker(settings, runtime)
        # The memorize job, and the reflect run it queued for the facts it wrote.
        assert (worker.jobs_complete, worker.jobs_failed) == (2, 0)
        done = (await api.ok(JOB, {"id": job_id}))["job"]
        assert done["status"] == "SUCCEEDED", done
        assert done["attempts"] == 1
        assert done["counts"]["messages"] == 6
        assert done["counts"]["memunits"] >= 1
        assert done["counts"]["memories"] >= 4
        made = await memories.count("caro")
        assert made == done["counts"]["memories"]

        # The same submission queued again (a retried request) has the same
        # arq id, which arq still knows (keep_result): it is dropped.
        await runtime.queue.enqueue(Delivery(job_id, 0))
        assert await queued_in_redis(settings) == 0
        # Delivered again under another id (a redelivery): the job finds its work done.
        await runtime.queue.enqueue(Delivery(job_id, 1))
        again = await run_burst_worker(settings, runtime)
        assert (again.jobs_complete, again.jobs_failed) == (1, 0)
        assert (await api.ok(JOB, {"id": job_id}))["job"] == done
        assert await memories.count("caro") == made

        # Submitting the same work again returns the finished job and queues nothing.
        resubmitted = (await api.ok(MEMORIZE, {"input": memorize_input(session_id)}))["memorize"]
        assert resubmitted["created"] == 0
        assert resubmitted["job"] == {"id": job_id, "status": "SUCCEEDED"}
        assert await queued_in_redis(settings) == 0


async def test_the_runtime_does_not_start_in_arq_mode_without_redis(
    tmp_path: Path,
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
) -> None:
    closed = f"redis://127.0.0.1:{free_port()}/0"
    started = time.monotonic()
    with pytest.raises(Unavailable, match=f"Redis at {closed} cannot be reached"):
        await Runtime.start(
            arq_settings(graph_db, tmp_path, closed), embedder=embedder, **graph_db.start
        )
    assert time.monotonic() - started < 10  # a couple of retries, not arq's five


async def test_async_memorize_answers_unavailable_when_redis_goes_away(
    runtime: Runtime, redis_server: PrivateRedis
) -> None:
    session_id = await caro_session(runtime)
    await runtime.services.memories.add_memory(
        SETTINGS_ADMIN, NewMemory("caro", "Caroline paints sunrises over the lake.")
    )
    redis_server.stop()
    async with graphql(runtime) as api:
        answer = (await api.ok(MEMORIZE, {"input": memorize_input(session_id)}))["memorize"]
        # Reads do not need the queue: search and lookups keep working.
        hits = (await api.ok(SEARCH, {"q": "what does Caroline paint?"}))["search"]["hits"]
        assert [h["memory"]["content"] for h in hits][:1] == [
            "Caroline paints sunrises over the lake."
        ]
        ready = await api.client.get("/readyz")
    assert answer["__typename"] == "UnavailableError", answer
    assert answer["code"] == "UNAVAILABLE"
    assert "job queue (Redis) cannot be reached" in answer["message"]
    assert ready.status_code == 503
    assert ready.json()["checks"]["graph"] == "ok"
    assert "Redis cannot be reached" in ready.json()["checks"]["queue"]
    # Nothing half built: no MemUnit and no memory beyond the one added before.
    assert await runtime.connection.store.memories.count("caro") == 1
    # The messages themselves were stored before the job was queued: nothing sent is lost.
    added = await runtime.services.messages.messages_of_sessions(
        SETTINGS_ADMIN, [session_id], 10, None
    )
    assert len(added[session_id].items) == 6


async def test_a_synchronous_memorize_keeps_its_memories_when_reflection_cannot_be_queued(
    runtime: Runtime, redis_server: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    # A small memorize runs in the request; only the reflect run it queues
    # after writing needs Redis. The memories stand, and the sweep finds them.
    session_id = await caro_session(runtime)
    redis_server.stop()
    with caplog.at_level(logging.WARNING, logger="hippograph.services.memorize"):
        async with graphql(runtime) as api:
            variables = {"input": memorize_input(session_id, run_async=False)}
            answer = (await api.ok(MEMORIZE, variables))["memorize"]
    assert answer["__typename"] == "Memorized", answer
    assert (answer["created"], answer["job"]) == (6, None)
    assert await runtime.connection.store.memories.count("caro") > 0
    [warning] = [r.getMessage() for r in caplog.records if r.name.endswith(".memorize")]
    assert warning.startswith(
        "could not queue reflection for caro: the job queue (Redis) cannot be reached"
    )
    # The live updates of the write (its memories, the reflect job's failed
    # record) could not be published either: counted, and the write stands.
    unpublished = runtime.metrics.registry.get_sample_value("hippograph_events_unpublished_total")
    assert unpublished == 2


async def test_memorize_answers_unavailable_within_its_timeout_when_redis_hangs(
    tmp_path: Path,
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    redis_server: PrivateRedis,
) -> None:
    timeout_s, hang_s = 1.0, 4.0
    settings = arq_settings(graph_db, tmp_path, redis_server.url, redis={"timeout_s": timeout_s})
    runtime = await Runtime.start(settings, embedder=embedder, **graph_db.start)
    admin = Redis.from_url(redis_server.url)
    try:
        session_id = await caro_session(runtime)
        await admin.client_pause(round(hang_s * 1000), all=True)
        hang_ends = time.monotonic() + hang_s
        async with graphql(runtime) as api:
            started = time.monotonic()
            answer = (await api.ok(MEMORIZE, {"input": memorize_input(session_id)}))["memorize"]
            took = time.monotonic() - started
            assert answer["__typename"] == "UnavailableError", answer
            assert answer["message"] == (
                f"the job queue (Redis) did not answer within {timeout_s:g} s"
            )
            assert took < hang_s - 1, took  # the timeout, not the hang
            ready = await api.client.get("/readyz")
            assert ready.status_code == 503
            assert ready.json()["checks"]["queue"] == (
                f"Redis did not answer within {timeout_s:g} s"
            )
            assert time.monotonic() < hang_ends  # both answered while Redis hung
            await asyncio.sleep(hang_ends - time.monotonic() + 0.2)
            assert (await api.client.get("/readyz")).status_code == 200

            # The messages were stored before the queue hung: sending them
            # again stores none twice, and queues the job that never was.
            again = (await api.ok(MEMORIZE, {"input": memorize_input(session_id)}))["memorize"]
            assert again["__typename"] == "Memorized", again
            assert again["created"] == 0
            assert again["job"]["status"] == "QUEUED"
            assert (await api.ok(JOB, {"id": again["job"]["id"]}))["job"]["status"] == "QUEUED"
            assert await queued_in_redis(settings) == 1
    finally:
        await admin.aclose()
        await runtime.stop()
