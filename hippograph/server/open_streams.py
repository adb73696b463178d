"""What one key holds open on the websocket: connections, and subscriptions across them.

Each connection and each subscription took one token of its key's rate
limit and then cost nothing more for as long as it stayed open: one key held
2,475 subscriptions over many sockets. The caps are per rate-limit bucket
(a key, or the address of callers without one), counted from the live
connections themselves, so no count can drift from what is open.
"""

from __future__ import annotations

from collections.abc import Sized
from typing import Protocol


class Connection(Protocol):
    """An open connection: its running operations are what it holds."""

    @property
    def operations(self) -> Sized: ...


class OpenStreams:
    """The open websocket connections of each bucket, capped."""

    def __init__(self, max_connections: int, max_subscriptions: int) -> None:
        self.max_connections = max_connections
        self.max_subscriptions = max_subscriptions
        self._open: dict[str, set[Connection]] = {}

    def connections(self, bucket: str) -> int:
        """How many connections ``bucket`` holds open."""
        return len(self._open.get(bucket, ()))

    def subscriptions(self, bucket: str) -> int:
        """How many operations ``bucket`` runs, over all its connections."""
        return sum(len(c.operations) for c in self._open.get(bucket, ()))

    def connection_refusal(self, bucket: str) -> str | None:
        """Why ``bucket`` may not open another connection, or None."""
        if self.connections(bucket) >= self.max_connections:
            return (
                f"this key holds {self.max_connections} open websocket connections already "
                "(HIPPOGRAPH_API__MAX_WEBSOCKETS_PER_KEY): close one, or subscribe on one of them"
            )
        return None

    def subscription_refusal(self, bucket: str) -> str | None:
        """Why ``bucket`` may not start another subscription, or None."""
        if self.subscriptions(bucket) >= self.max_subscriptions:
            return (
                f"this key runs {self.max_subscriptions} subscriptions already "
                "(HIPPOGRAPH_API__MAX_SUBSCRIPTIONS_PER_KEY): complete one first"
            )
        return None

    def opened(self, bucket: str, connection: Connection) -> None:
        """``connection`` of ``bucket`` is acknowledged."""
        self._open.setdefault(bucket, set()).add(connection)

    def closed(self, bucket: str, connection: Connection) -> None:
        """``connection`` of ``bucket`` is gone (its operations with it)."""
        held = self._open.get(bucket)
        if held is not None:
            held.discard(connection)
            if not held:
                del self._open[bucket]
