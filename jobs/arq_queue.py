"""Server mode: jobs go to Redis through arq, and ``hippograph worker`` runs them."""

from __future__ import annotations

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings

from hippograph.errors import Unavailable

RUN_JOB = "run_job"


def redis_settings(url: str) -> RedisSettings:
    """arq's connection settings for a ``redis://`` URL."""
    return RedisSettings.from_dsn(url)


class ArqQueue:
    """Enqueues job ids on an arq queue."""

    def __init__(self, pool: ArqRedis, queue_name: str) -> None:
        self._pool = pool
        self._queue_name = queue_name

    @classmethod
    async def connect(cls, url: str, queue_name: str) -> ArqQueue:
        """A queue over a new connection pool to Redis at ``url``."""
        try:
            pool = await create_pool(redis_settings(url), retry=1)
        except (OSError, ConnectionError) as exc:
            raise Unavailable(f"Redis at {url} cannot be reached: {exc}") from exc
        return cls(pool, queue_name)

    async def enqueue(self, job_id: str) -> None:
        """Queue ``run_job(job_id)``; the job's record decides whether it still has work."""
        try:
            await self._pool.enqueue_job(RUN_JOB, job_id, _queue_name=self._queue_name)
        except (OSError, ConnectionError) as exc:
            raise Unavailable(f"the job queue (Redis) cannot be reached: {exc}") from exc

    async def close(self) -> None:
        """Close the connection pool."""
        await self._pool.aclose()
