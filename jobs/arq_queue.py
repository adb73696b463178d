"""Server mode: jobs go to Redis through arq, and ``hippograph worker`` runs them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from arq.connections import ArqRedis, RedisSettings
from arq.constants import in_progress_key_prefix
from redis.exceptions import RedisError

from hippograph.addresses import shown
from hippograph.errors import Unavailable
from hippograph.jobs import Delivery, QueuedRun
from jobs.redis_pool import connect

RUN_JOB = "run_job"

T = TypeVar("T")

# redis-py raises its own ConnectionError/TimeoutError (subclasses of RedisError,
# not of the builtins), and a socket error can still surface as OSError.
_REDIS_DOWN = (RedisError, OSError, ConnectionError, TimeoutError)


def dump_payload(value: dict[str, Any]) -> bytes:
    """arq's serializer: JSON, not pickle.

    arq pickles by default, and unpickling what is in Redis would run code
    that anyone able to write to Redis put there. Our payloads are job ids;
    a failed run's exception is kept as its text.
    """
    return json.dumps(value, default=repr).encode()


def load_payload(raw: bytes) -> dict[str, Any]:
    """arq's deserializer (see :func:`dump_payload`); anything but a JSON object is refused."""
    value = json.loads(raw)
    if not isinstance(value, dict):
        raise ValueError("an arq payload must be a JSON object")
    return value


def _arq_id(delivery: Delivery) -> str:
    """The arq id of one delivery of a job (see :meth:`ArqQueue.enqueue`)."""
    arq_id = f"{delivery.job_id}:{delivery.attempt}"
    if delivery.lapsed_at is not None:
        arq_id += f":lapsed:{_ms(delivery.lapsed_at)}"
    if delivery.queued_at is not None:
        arq_id += f":queued:{_ms(delivery.queued_at)}"
    return arq_id


def _ms(at: datetime) -> int:
    return round(at.timestamp() * 1000)


def redis_settings(url: str) -> RedisSettings:
    """arq's connection settings for a ``redis://`` URL."""
    return RedisSettings.from_dsn(url)


class ArqQueue:
    """Enqueues job ids on an arq queue."""

    def __init__(self, pool: ArqRedis, queue_name: str, timeout_s: float = 5.0) -> None:
        self._pool = pool
        self._queue_name = queue_name
        self._timeout_s = timeout_s

    @classmethod
    async def connect(
        cls, url: str, queue_name: str, *, retries: int = 2, timeout_s: float = 5.0
    ) -> ArqQueue:
        """A queue over a new connection pool to Redis at ``url``.

        ``retries`` more attempts are made, a second apart, so a Redis that is
        still starting (``docker compose up``) is waited for briefly; arq's own
        default (5) would hold a misconfigured start-up for five seconds.
        """
        settings = replace(
            redis_settings(url),
            conn_retries=retries,
            conn_retry_delay=1,
            conn_timeout=max(1, round(timeout_s)),
        )
        try:
            pool = await connect(
                settings, job_serializer=dump_payload, job_deserializer=load_payload
            )
        except _REDIS_DOWN as exc:
            raise Unavailable(f"Redis at {shown(url)} cannot be reached: {exc}") from exc
        return cls(pool, queue_name, timeout_s)

    async def enqueue(self, delivery: Delivery) -> bool:
        """Queue ``run_job(job_id)`` under the arq id ``<job id>:<attempt>``; False if known.

        The id is deterministic, so the same submission queued twice (a
        retried request) runs once; it includes the attempt because arq drops
        a known id for as long as it keeps the result, and a failed job that
        is submitted again must run again. A takeover of a lapsed run
        (``lapsed_at``) is ``<job id>:<attempt>:lapsed:<ms>``: every sweep that
        finds the same lapse queues it once, and it never shadows a later
        resubmission's id. A sweep's delivery of a job queued with none on its
        way (``queued_at``) is ``<job id>:<attempt>:queued:<ms>``. The job's
        record in the graph still decides whether there is work left. arq
        answers None for an id it already holds, queued or with its result
        still kept.
        """
        queued = await self._answer(
            self._pool.enqueue_job(
                RUN_JOB,
                delivery.job_id,
                _job_id=_arq_id(delivery),
                _queue_name=self._queue_name,
            ),
            "the job queue (Redis)",
        )
        return queued is not None

    async def holds(self, run: QueuedRun) -> bool:
        """Whether arq has a delivery of the queued job ``run`` waiting or running.

        Those it may have: the submission's (or a resubmission's),
        ``<job id>:<attempt>``; the delivery its last run was cut off in,
        which arq hands out again (``<job id>:<attempt - 1>``); and a sweep's
        of the job's ``queued_at``. A delivery arq has finished with, its
        result kept or expired, holds nothing. A takeover's delivery
        (``:lapsed:``) is not looked for: a job queued for a lease after its
        run stopped has had time to be taken.
        """
        ids = [
            _arq_id(Delivery(run.job_id, run.attempt)),
            _arq_id(Delivery(run.job_id, run.attempt, queued_at=run.queued_at)),
        ]
        if run.attempt > 0:
            ids.append(_arq_id(Delivery(run.job_id, run.attempt - 1)))

        async def look() -> bool:
            async with self._pool.pipeline(transaction=False) as pipe:
                for arq_id in ids:
                    pipe.exists(in_progress_key_prefix + arq_id)
                    pipe.zscore(self._queue_name, arq_id)
                answers = await pipe.execute()
            return any(answers)

        return await self._answer(look(), "the job queue (Redis)")

    async def ping(self) -> None:
        """Raise ``Unavailable`` unless Redis answers within the timeout."""
        await self._answer(self._pool.ping())

    async def server_time(self) -> datetime:
        """Redis's clock (its ``TIME``), the one every process of a deployment reaches.

        Raises ``Unavailable`` unless Redis answers within the timeout.
        """
        seconds, micros = await self._answer(self._pool.time())
        return datetime.fromtimestamp(seconds + micros / 1_000_000, UTC)

    async def _answer(self, call: Awaitable[T], what: str = "Redis") -> T:
        """``call``'s answer within the timeout, else ``Unavailable`` naming ``what``."""
        try:
            return await asyncio.wait_for(call, self._timeout_s)
        except TimeoutError as exc:
            raise Unavailable(f"{what} did not answer within {self._timeout_s:g} s") from exc
        except _REDIS_DOWN as exc:
            raise Unavailable(f"{what} cannot be reached: {exc}") from exc

    async def close(self) -> None:
        """Close the connection pool."""
        await self._pool.aclose()
