"""Events fanned out to this process's subscribers, by topic.

Embedded mode's whole event bus (writers and subscribers share the process),
and the local half of the Redis bus, which feeds it what its one Redis
subscription hears.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from hippograph.events import Event, topic_of

log = logging.getLogger(__name__)

# Events a subscriber may fall behind by before newer ones are dropped for it:
# a stalled websocket must not hold memory without bound.
BACKLOG = 256


class LocalListener:
    """One subscriber's queue of events."""

    def __init__(self, topic: str, backlog: int = BACKLOG) -> None:
        self.topic = topic
        self._events: asyncio.Queue[Event] = asyncio.Queue(backlog)
        self.dropped = 0

    def offer(self, event: Event) -> None:
        """Queue ``event``; dropped (and counted) if this subscriber is too far behind."""
        try:
            self._events.put_nowait(event)
        except asyncio.QueueFull:
            self.dropped += 1
            if self.dropped == 1:
                log.warning("a subscriber of %s is falling behind; dropping events", self.topic)

    async def next(self, timeout_s: float | None = None) -> Event | None:
        """The next event; None if none came within ``timeout_s``."""
        try:
            return await asyncio.wait_for(self._events.get(), timeout_s)
        except TimeoutError:
            return None


class LocalBroadcast:
    """Subscribers of this process by topic; :meth:`publish` delivers at once."""

    def __init__(self, backlog: int = BACKLOG) -> None:
        self._backlog = backlog
        self._listeners: dict[str, set[LocalListener]] = {}

    async def publish(self, event: Event) -> None:
        """Deliver ``event`` to this process's subscribers of its topic."""
        self.deliver(event)

    def deliver(self, event: Event) -> None:
        """:meth:`publish` without a coroutine (the Redis listener's loop calls it)."""
        for listener in tuple(self._listeners.get(topic_of(event), ())):
            listener.offer(event)

    @contextlib.asynccontextmanager
    async def subscribe(self, topic: str) -> AsyncIterator[LocalListener]:
        """A listener of ``topic`` for as long as the context is open."""
        listener = LocalListener(topic, self._backlog)
        self._listeners.setdefault(topic, set()).add(listener)
        try:
            yield listener
        finally:
            listeners = self._listeners.get(topic)
            if listeners is not None:
                listeners.discard(listener)
                if not listeners:
                    del self._listeners[topic]

    @property
    def subscribers(self) -> int:
        """How many listeners are open (tests, metrics)."""
        return sum(len(s) for s in self._listeners.values())

    async def close(self) -> None:
        """Nothing to release: listeners go with their subscriptions."""
