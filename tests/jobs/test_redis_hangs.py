"""A Redis that hangs (up, but answering nothing) costs a memorize its timeout, not the hang.

The server is paused with CLIENT PAUSE, which holds every client's
commands: what a Redis stuck in a long script or a slow disk looks like.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from redis.asyncio import Redis

from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.settings import Settings
from tests.graphs import TestDatabase
from tests.jobs.conftest import arq_settings
from tests.jobs.private_redis import PrivateRedis
from tests.jobs.support import JOB, MEMORIZE, graphql, memorize_input, queued_in_redis

pytestmark = pytest.mark.slow  # a redis-server of its own

TIMEOUT_S = 1.0
HANG_S = 4.0


@pytest.fixture
def settings(graph_db: TestDatabase, tmp_path: Path, redis_server: PrivateRedis) -> Settings:
    """Jobs on the test's Redis, which may take a second per command."""
    return arq_settings(graph_db, tmp_path, redis_server.url, redis={"timeout_s": TIMEOUT_S})


async def test_memorize_answers_unavailable_within_its_timeout_and_queues_once_redis_answers(
    runtime: Runtime, settings: Settings, redis_server: PrivateRedis
) -> None:
    await runtime.services.users.create_user(SETTINGS_ADMIN, "caro", "Caroline")
    session_id = (await runtime.services.users.create_session(SETTINGS_ADMIN, "caro", "chat")).id
    admin = Redis.from_url(redis_server.url)
    try:
        await admin.client_pause(round(HANG_S * 1000), all=True)
        hang_ends = time.monotonic() + HANG_S
        async with graphql(runtime) as api:
            started = time.monotonic()
            answer = (await api.ok(MEMORIZE, {"input": memorize_input(session_id)}))["memorize"]
            took = time.monotonic() - started
            assert answer["__typename"] == "UnavailableError", answer
            assert answer["message"] == (
                f"the job queue (Redis) did not answer within {TIMEOUT_S:g} s"
            )
            assert took < HANG_S - 1, took  # the timeout, not the hang
            await asyncio.sleep(hang_ends - time.monotonic() + 0.2)

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
