"""Server mode: jobs go to Redis through arq, and ``hippograph worker`` runs them."""

from __future__ import annotations

from dataclasses import replace

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from redis.exceptions import RedisError

from hippograph.errors import Unavailable

RUN_JOB = "run_job"

# redis-py raises its own ConnectionError/TimeoutError (subclasses of RedisError,
# not of the builtins), and a socket error can still surface as OSError.
_REDIS_DOWN = (RedisError, OSError, ConnectionError, TimeoutError)


def redis_settings(url: str) -> RedisSettings:
    """arq's connection settings for a ``redis://`` URL."""
    return RedisSettings.from_dsn(url)


class ArqQueue:
    """Enqueues job ids on an arq queue."""

    def __init__(self, pool: ArqRedis, queue_name: str) -> None:
        self._pool = pool
        self._queue_name = queue_name

    @classmethod
    async def connect(cls, url: str, queue_name: str, *, retries: int = 2) -> ArqQueue:
        """A queue over a new connection pool to Redis at ``url``.

        ``retries`` more attempts are made, a second apart, so a Redis that is
        still starting (``docker compose up``) is waited for briefly; arq's own
        default (5) would hold a misconfigured start-up for five seconds.
        """
        settings = replace(redis_settings(url), conn_retries=retries, conn_retry_delay=1)
        try:
            pool = await create_pool(settings)
        except _REDIS_DOWN as exc:
            raise Unavailable(f"Redis at {url} cannot be reached: {exc}") from exc
        return cls(pool, queue_name)

    async def enqueue(self, job_id: str) -> None:
        """Queue ``run_job(job_id)``; the job's record decides whether it still has work.

        No ``_job_id`` is given to arq on purpose: arq would drop a second
        enqueue of the same id for as long as it keeps the first result, and
        a failed job that is submitted again must run again.
        """
        try:
            await self._pool.enqueue_job(RUN_JOB, job_id, _queue_name=self._queue_name)
        except _REDIS_DOWN as exc:
            raise Unavailable(f"the job queue (Redis) cannot be reached: {exc}") from exc

    async def close(self) -> None:
        """Close the connection pool."""
        await self._pool.aclose()
