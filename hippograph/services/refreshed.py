"""A cache whose entries are refreshed behind the requests that read them.

For values that only steer how a request is served (a user's memory count,
a sample of their terms), never what it returns: a value a little old costs
at most a slower query. Once an entry is ``ttl_s`` old, the next read
returns it still and starts one refresh that runs after the request.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from hippograph.errors import HippoError

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Refreshed(Generic[K, V]):
    """Values of ``load(key)``, cached for ``ttl_s`` and then refreshed in the background."""

    def __init__(self, load: Callable[[K], Awaitable[V]], ttl_s: float) -> None:
        self._load = load
        self._ttl = ttl_s
        self._cache: dict[K, tuple[float, V]] = {}
        self._refreshing: dict[K, asyncio.Task[None]] = {}

    async def get(self, key: K) -> V:
        """The value for ``key``; only the first read of a key waits for it."""
        hit = self._cache.get(key)
        if hit is None:
            return await self._store(key)
        self._refresh_if_stale(key, hit[0])
        return hit[1]

    def peek(self, key: K) -> V | None:
        """The cached value, or None; a missing or stale one is loaded behind the caller."""
        hit = self._cache.get(key)
        self._refresh_if_stale(key, None if hit is None else hit[0])
        return None if hit is None else hit[1]

    def _refresh_if_stale(self, key: K, loaded_at: float | None) -> None:
        stale = loaded_at is None or time.monotonic() - loaded_at >= self._ttl
        if stale and key not in self._refreshing:
            self._refreshing[key] = asyncio.create_task(self._refresh(key))

    async def _store(self, key: K) -> V:
        value = await self._load(key)
        self._cache[key] = (time.monotonic(), value)
        return value

    async def _refresh(self, key: K) -> None:
        try:
            await self._store(key)
        except HippoError:
            pass  # the cached value (if any) stays; the next read tries again
        finally:
            self._refreshing.pop(key, None)
