"""Live updates: what changed (ids only), the port that carries it, and the safe announcer.

Events name what changed and nothing else: a subscriber reloads the job or
the memories through the services with its own principal, so what it may
see is decided exactly as for a query, never by what an event carried.

Two buses implement :class:`EventBus`: ``hippograph.broadcast.LocalBroadcast``
(embedded mode: jobs run in the API's process) and
``hippograph.adapters.redis_events.RedisEventBus`` (server mode: an arq
worker publishes, the API's process hears it through Redis pub/sub). Writers
never talk to a bus directly but through :class:`Announcer`, which never
raises: a dropped event is acceptable, a failed memorize is not.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from hippograph.jobs import Job, JobStatus
from hippograph.models import Memory

log = logging.getLogger(__name__)

# A publish waits at most this long: an event is not worth holding up a job.
PUBLISH_TIMEOUT_S = 1.0


@dataclass(frozen=True, slots=True)
class JobChanged:
    """A job's record changed (queued, running, succeeded, failed)."""

    job_id: str
    status: JobStatus


@dataclass(frozen=True, slots=True)
class MemoriesAdded:
    """New memory nodes of one user (added, made by a job, or a new version)."""

    user_id: str
    memory_ids: tuple[str, ...]


Event = JobChanged | MemoriesAdded


def job_topic(job_id: str) -> str:
    """The topic a job's changes go to."""
    return f"job:{job_id}"


def memories_topic(user_id: str) -> str:
    """The topic a user's new memories go to."""
    return f"memories:{user_id}"


def topic_of(event: Event) -> str:
    """Where ``event`` is delivered."""
    if isinstance(event, JobChanged):
        return job_topic(event.job_id)
    return memories_topic(event.user_id)


class Listener(Protocol):
    """One subscriber's events, in the order they arrived."""

    async def next(self, timeout_s: float | None = None) -> Event | None:
        """The next event; None if none came within ``timeout_s`` (None: wait forever)."""
        ...


class EventBus(Protocol):
    """Carries events from writers to subscribers (in this process or across processes)."""

    async def publish(self, event: Event) -> None:
        """Send ``event`` to every subscriber of its topic, wherever they are (may raise)."""
        ...

    def subscribe(self, topic: str) -> AbstractAsyncContextManager[Listener]:
        """Listen to ``topic`` while the context is open.

        Events published after entering are delivered, so a subscriber that
        reads the current state after entering misses nothing in between.
        """
        ...


@dataclass(frozen=True)
class Announcer:
    """What the services tell a bus; never raises, never waits long.

    With no bus (a runtime's tools, tests of one service) it does nothing.
    """

    bus: EventBus | None = None
    timeout_s: float = PUBLISH_TIMEOUT_S
    # Told of each event that could not be published (a metric counts them).
    unpublished: Callable[[], None] | None = None

    async def job_changed(self, job: Job) -> None:
        """A job's status (or record) changed."""
        await self._publish(JobChanged(job.id, job.status))

    async def memories_added(self, memories: Iterable[Memory]) -> None:
        """New memory nodes were written: one event per user they belong to."""
        by_user: dict[str, list[str]] = {}
        for memory in memories:
            by_user.setdefault(memory.user_id, []).append(memory.id)
        for user_id, ids in by_user.items():
            await self._publish(MemoriesAdded(user_id, tuple(ids)))

    async def _publish(self, event: Event) -> None:
        if self.bus is None:
            return
        try:
            await asyncio.wait_for(self.bus.publish(event), self.timeout_s)
        except Exception as exc:
            # The write this announces has committed; live updates are best effort.
            log.warning("could not publish %s: %r", type(event).__name__, exc)
            if self.unpublished is not None:
                self.unpublished()


NO_EVENTS = Announcer()
