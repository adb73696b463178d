"""A transaction cancelled while it ends its WATCH gives its connection back (jobs/redis_pool.py).

The cancel is made to land in the UNWATCH every time: the server is paused
(CLIENT PAUSE) just before the pipeline resets, so the reset is waiting for
the UNWATCH's reply when the cancel comes. The pools allow one connection,
so a lost one shows as the next command's "Too many connections".

A fresh clone's ``make test`` caught the loss as a ResourceWarning
("Unclosed client session") when a test stopped an arq worker: the stop
cancels arq's poll loop, most often inside the transaction that claims a
queued id.
"""

from __future__ import annotations

import asyncio
import gc
import random
import warnings
from typing import Any, TypeVar

import pytest
from arq.constants import default_queue_name, in_progress_key_prefix
from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import ConnectionError as RedisConnectionError

from jobs.arq_queue import redis_settings
from jobs.redis_pool import CancelSafeArqRedis, connect
from jobs.stopping import CleanStopWorker
from tests.jobs.private_redis import PrivateRedis
from tests.jobs.support import close_worker

pytestmark = pytest.mark.slow  # a redis-server of its own

# Long beside the wait before the cancel, so that a slow CI runner still cancels inside it.
PAUSE_MS = 2000
# Stops of a worker whose every poll claims (WATCHes) many ids: before the
# fix about one stop in three lost a connection.
STOPS = 30
CLAIMED = 20
Stoppable = TypeVar("Stoppable", bound=CleanStopWorker)


async def _cancelled_in_its_unwatch(client: Redis, admin: Redis) -> Pipeline:
    """A transaction pipeline of ``client`` that WATCHed, its reset cancelled in the UNWATCH."""
    pipe = client.pipeline(transaction=True)
    await pipe.watch("claimed")
    await admin.client_pause(PAUSE_MS, all=True)
    resetting = asyncio.create_task(pipe.aclose())  # aclose is reset
    await asyncio.sleep(0.2)  # UNWATCH is sent; its reply waits for the pause
    resetting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await resetting
    return pipe


async def test_a_reset_cancelled_in_its_unwatch_gives_the_connection_back(
    redis_server: PrivateRedis,
) -> None:
    settings = redis_settings(redis_server.url)
    settings.max_connections = 1
    client = await connect(settings)
    try:
        async with Redis.from_url(redis_server.url) as admin:
            pipe = await _cancelled_in_its_unwatch(client, admin)
            assert pipe.connection is None
            # The pool's one connection serves again once the pause is over,
            # and holds no WATCH: a transaction on the watched key commits
            # although another client changed the key.
            assert await client.ping()
            await admin.set("claimed", "by another worker")
            async with client.pipeline(transaction=True) as after:
                after.set("claimed", "here")  # in MULTI/EXEC, which a WATCH left would fail
                assert await after.execute() == [True]
            assert await admin.get("claimed") == b"here"
    finally:
        await client.aclose()


async def test_redis_pys_own_pipeline_loses_it_so_the_module_is_still_needed(
    redis_server: PrivateRedis,
) -> None:
    # When this fails, redis-py (as arq allows it) has its fix (redis-py #4121):
    # jobs/redis_pool.py can go, and arq's own create_pool serve again.
    client = Redis.from_url(redis_server.url, max_connections=1)
    pipe = None
    try:
        async with Redis.from_url(redis_server.url) as admin:
            pipe = await _cancelled_in_its_unwatch(client, admin)
            assert pipe.connection is not None
            with pytest.raises(RedisConnectionError, match="Too many connections"):
                await client.ping()
    finally:
        if pipe is not None and pipe.connection is not None:
            # Given back by hand, so that its collection does not warn.
            await client.connection_pool.release(pipe.connection)
            pipe.connection = None
        await client.aclose()


async def _noop(ctx: dict[str, object], job_id: object = None) -> None:
    """A job function the worker never runs: every queued id is claimed elsewhere."""


async def _started(
    kind: type[Stoppable], server: PrivateRedis, **options: Any
) -> tuple[Stoppable, asyncio.Task[None]]:
    """An in-loop worker of ``kind`` on ``server``, running, its Redis pool made."""
    connected = asyncio.Event()

    async def on_startup(ctx: dict[str, Any]) -> None:  # arq calls it once its pool is made
        connected.set()

    worker = kind(
        functions=[_noop],
        redis_settings=redis_settings(server.url),
        on_startup=on_startup,
        handle_signals=False,
        **options,
    )
    running = asyncio.create_task(worker.async_run())
    await asyncio.wait_for(connected.wait(), 10)
    return worker, running


async def test_an_in_loop_worker_stopped_while_it_claims_loses_no_connection(
    redis_server: PrivateRedis,
) -> None:
    async with Redis.from_url(redis_server.url) as admin:
        # Ids another worker runs: each poll WATCHes every one of them, and
        # skips it. A stop then lands inside a claim's transaction most times.
        for n in range(CLAIMED):
            await admin.zadd(default_queue_name, {f"claimed-{n}": 1})
            await admin.psetex(f"{in_progress_key_prefix}claimed-{n}", 600_000, b"1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for _ in range(STOPS):
            worker, running = await _started(CleanStopWorker, redis_server, poll_delay=0.001)
            assert isinstance(worker.pool, CancelSafeArqRedis)
            await asyncio.sleep(random.uniform(0.01, 0.04))  # a few polls
            await close_worker(worker)
            await asyncio.gather(running, return_exceptions=True)
            del worker, running
            gc.collect()
    assert [str(warning.message) for warning in caught] == []


class _SlowToEnd(CleanStopWorker):
    """A worker whose poll loop, once cancelled, still talks to Redis, as a claim's UNWATCH does."""

    cleanup_answered: bool | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.waiting = asyncio.Event()

    async def heart_beat(self) -> None:
        self.waiting.set()
        try:
            await asyncio.sleep(3600)  # where the loop waits when the stop comes
        except asyncio.CancelledError:
            await asyncio.sleep(0.1)
            self.cleanup_answered = bool(await self.pool.ping())
            raise


async def test_an_in_loop_workers_close_lets_its_poll_loop_end_before_it_closes_the_pool(
    redis_server: PrivateRedis,
) -> None:
    # arq's own close() cancels the loop and closes the pool at once: the
    # cleanup then finds no pool, or opens a connection of a closed pool.
    worker, running = await _started(_SlowToEnd, redis_server)
    await asyncio.wait_for(worker.waiting.wait(), 10)
    await close_worker(worker)
    await asyncio.gather(running, return_exceptions=True)
    assert worker.cleanup_answered is True
    assert worker.pool is None  # and then close() went on to close the pool
