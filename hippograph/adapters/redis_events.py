"""Server mode's event bus: Redis pub/sub between the worker and the API processes.

Every process publishes on one channel (named after the job queue, so
deployments sharing a Redis stay apart). A process that has subscribers
holds one Redis subscription to that channel, whatever their number, and
fans what it hears out locally (``hippograph.broadcast``): a thousand
websockets cost one Redis connection, not a thousand. A process that only
publishes (an arq worker) never subscribes.

Pub/sub delivers to whoever listens at that instant and keeps nothing: an
event sent while the subscription is reconnecting is lost. That is the
contract of live updates here (``jobUpdated`` re-reads the job now and then,
so a lost event only delays it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from redis.asyncio import Redis
from redis.exceptions import RedisError

from hippograph.broadcast import LocalBroadcast, LocalListener
from hippograph.errors import Unavailable
from hippograph.events import Event, JobChanged, MemoriesAdded
from hippograph.jobs import JobStatus

log = logging.getLogger(__name__)

_RETRY_FIRST_S = 0.5
_RETRY_MAX_S = 30.0


class _JobWire(BaseModel):
    kind: Literal["job"] = "job"
    job_id: str = Field(max_length=64)
    status: JobStatus


class _MemoriesWire(BaseModel):
    kind: Literal["memories"] = "memories"
    user_id: str = Field(max_length=256)
    memory_ids: tuple[str, ...]


_WIRE: TypeAdapter[_JobWire | _MemoriesWire] = TypeAdapter(
    Annotated[_JobWire | _MemoriesWire, Field(discriminator="kind")]
)


def encode(event: Event) -> bytes:
    """An event as the JSON the channel carries."""
    if isinstance(event, JobChanged):
        return _JobWire(job_id=event.job_id, status=event.status).model_dump_json().encode()
    wire = _MemoriesWire(user_id=event.user_id, memory_ids=event.memory_ids)
    return wire.model_dump_json().encode()


def decode(raw: bytes | str) -> Event:
    """An event read off the channel (``ValueError`` if it is not one of ours)."""
    wire = _WIRE.validate_json(raw)
    if isinstance(wire, _JobWire):
        return JobChanged(wire.job_id, wire.status)
    return MemoriesAdded(wire.user_id, wire.memory_ids)


def channel_name(queue: str) -> str:
    """The pub/sub channel of the deployment whose job queue is ``queue``."""
    return f"{queue}:events"


class RedisEventBus:
    """Publishes on a Redis channel; subscribers hear it through one shared subscription."""

    def __init__(self, url: str, channel: str, timeout_s: float = 5.0) -> None:
        self._channel = channel
        self._timeout_s = timeout_s
        self._publisher = Redis.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
        # No read timeout: an idle subscription waits for as long as nothing happens.
        self._subscriber = Redis.from_url(url, socket_connect_timeout=timeout_s)
        self._local = LocalBroadcast()
        self._ready = asyncio.Event()
        self._listening: asyncio.Task[None] | None = None

    async def publish(self, event: Event) -> None:
        """Send ``event`` to every process subscribed to the channel (this one included)."""
        await self._publisher.publish(self._channel, encode(event))

    @contextlib.asynccontextmanager
    async def subscribe(self, topic: str) -> AsyncIterator[LocalListener]:
        """Listen to ``topic``; ``Unavailable`` if the channel cannot be subscribed to in time.

        The listener is registered before the subscription is confirmed, and
        the context is entered only once Redis has confirmed it: from then on
        nothing published is missed (except across a reconnection).
        """
        async with self._local.subscribe(topic) as listener:
            if self._listening is None or self._listening.done():
                self._listening = asyncio.create_task(self._listen(), name="redis events")
            try:
                await asyncio.wait_for(self._ready.wait(), self._timeout_s)
            except TimeoutError:
                raise Unavailable(
                    f"live updates: Redis did not confirm the subscription within "
                    f"{self._timeout_s:g} s"
                ) from None
            yield listener

    async def _listen(self) -> None:
        """Hold the one subscription, reconnecting with back-off, and fan events out."""
        delay = _RETRY_FIRST_S
        while True:
            pubsub = self._subscriber.pubsub()
            try:
                await pubsub.subscribe(self._channel)
                async for message in pubsub.listen():
                    if message["type"] == "subscribe":
                        self._ready.set()
                        delay = _RETRY_FIRST_S
                    elif message["type"] == "message":
                        self._deliver(message["data"])
            except (RedisError, OSError) as exc:
                log.warning("the Redis event subscription failed (%r); again in %g s", exc, delay)
            except Exception:
                # Whatever it was, this process's subscribers depend on this loop going on.
                log.exception("the Redis event subscription crashed; again in %g s", delay)
            finally:
                self._ready.clear()
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, _RETRY_MAX_S)

    def _deliver(self, raw: bytes) -> None:
        try:
            event = decode(raw)
        except (ValidationError, ValueError):
            # Anyone able to write to Redis can publish here: refuse, keep listening.
            log.warning("ignored a malformed event on %s: %r", self._channel, raw[:200])
            return
        self._local.deliver(event)

    @property
    def subscribers(self) -> int:
        """How many local listeners are open."""
        return self._local.subscribers

    async def ping(self) -> None:
        """Raise unless Redis answers (used by tests and readiness)."""
        await self._publisher.ping()

    async def close(self) -> None:
        """Stop listening and close both connections."""
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listening
        await self._publisher.aclose()
        await self._subscriber.aclose()
