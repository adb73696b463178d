"""Live updates in server mode: a worker's events reach the API process through Redis."""

from __future__ import annotations

import asyncio
import logging
from contextlib import aclosing

import pytest
from redis.asyncio import Redis

from hippograph.adapters.redis_events import RedisEventBus, channel_name
from hippograph.clock import utc_now
from hippograph.errors import Unavailable
from hippograph.jobs import JobStatus
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memories import NewMemory
from hippograph.settings import Settings
from hippograph.wiring import build_services
from tests.jobs.private_redis import PrivateRedis
from tests.jobs.support import caro_session, submit_memorize

pytestmark = [
    pytest.mark.slow,  # a redis-server of its own
    pytest.mark.only_on("arcadedb", "the event transport is the same whatever the graph"),
]


async def _subscribed(runtime: Runtime, count: int) -> None:
    """Until ``count`` subscriptions listen in the API's process."""
    for _ in range(3000):
        if runtime.events.subscribers >= count:
            return
        await asyncio.sleep(0.01)
    pytest.fail(f"{runtime.events.subscribers} of {count} subscriptions listen")


async def test_a_workers_events_reach_the_api_process_through_one_redis_subscription(
    runtime: Runtime, settings: Settings
) -> None:
    session_id = await caro_session(runtime)
    # What a worker process holds: services over the same graph, publishing
    # on a Redis connection of their own.
    worker_bus = RedisEventBus(settings.redis.url, channel_name(settings.jobs.queue))
    worker = build_services(
        runtime.connection.store,
        runtime.embedder,
        runtime.llm,
        utc_now,
        settings,
        runtime.queue,
        bus=worker_bus,
    )
    redis = Redis.from_url(settings.redis.url)
    live = runtime.services.live
    try:
        job_id = await submit_memorize(runtime, session_id)
        async with (
            aclosing(live.job_updates(SETTINGS_ADMIN, job_id)) as job_updates,
            aclosing(live.memories_added(SETTINGS_ADMIN, "caro")) as new_memories,
        ):
            assert (await anext(job_updates)).status is JobStatus.QUEUED
            first_memory = asyncio.ensure_future(anext(new_memories))
            await _subscribed(runtime, 2)
            # Two subscriptions, one Redis subscriber: the API process's.
            assert await redis.pubsub_numsub(channel_name(settings.jobs.queue)) == [
                (channel_name(settings.jobs.queue).encode(), 1)
            ]
            # Whatever else is on the channel is refused, and listening goes on.
            await redis.publish(channel_name(settings.jobs.queue), b"not json")
            await redis.publish(channel_name(settings.jobs.queue), b'{"kind": "job"}')

            finished = await worker.job_runner.run(job_id)
            assert finished is not None
            assert finished.status is JobStatus.SUCCEEDED
            seen = [job async for job in job_updates]
            assert seen[-1] == finished
            made = finished.counts["memories"]
            assert made > 0
            arrived = [await first_memory] + [await anext(new_memories) for _ in range(made - 1)]
        stored = await runtime.connection.store.memories.count("caro")
        assert len({m.id for m in arrived}) == made == stored
        assert runtime.events.subscribers == 0
        assert worker_bus.subscribers == 0  # a publisher never subscribes
    finally:
        await redis.aclose()
        await worker_bus.close()


async def test_with_redis_gone_writes_succeed_and_subscribing_says_why_not(
    runtime: Runtime, redis_server: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    await runtime.services.users.create_user(SETTINGS_ADMIN, "caro", "Caroline")
    redis_server.stop()
    with caplog.at_level(logging.WARNING, "hippograph.events"):
        await runtime.services.memories.add_memory(
            SETTINGS_ADMIN, NewMemory(user_id="caro", content="Caroline lives in Boston")
        )
    assert await runtime.connection.store.memories.count("caro") == 1
    assert "could not publish MemoriesAdded" in caplog.text
    unpublished = runtime.metrics.registry.get_sample_value("hippograph_events_unpublished_total")
    assert unpublished == 1
    with pytest.raises(Unavailable, match="did not confirm the subscription"):
        async with aclosing(runtime.services.live.memories_added(SETTINGS_ADMIN, "caro")) as gen:
            await anext(gen)
