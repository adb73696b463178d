"""Vector candidates scoped to one user: exact for small users, oversampled index for large ones."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import TypeVar

from hippograph.services.refreshed import Refreshed
from hippograph.settings import SearchSettings

T = TypeVar("T")


class MemoryCounts:
    """Per-user memory counts, served from a cache and refreshed behind the request.

    A count only picks the search path, and both paths are correct, so a
    count a little old costs at most a slower query, never a wrong answer.
    Counting a large user's memories takes tens of milliseconds, so only the
    first search of a user waits for it (see ``Refreshed``).
    """

    def __init__(self, count: Callable[[str | None], Awaitable[int]], ttl_s: float) -> None:
        self._counts: Refreshed[str | None, int] = Refreshed(count, ttl_s)

    async def get(self, user_id: str | None) -> int:
        """Memories of ``user_id`` (all users' for None)."""
        return await self._counts.get(user_id)


class ScopedNearest:
    """A user's nearest neighbours, whichever way is right for the user's size.

    Neither server's vector index can filter before it ranks. A user with few
    items is scanned exactly (fast and perfect at that size). For a larger
    user the index is asked for enough neighbours that, at the user's share of
    all items, about ``oversample`` times ``k`` of them should be the user's
    (twice by default, four times when the caller's filters drop many); when
    the filters leave fewer than ``k``, the request grows fourfold up to a cap,
    and past the cap the exact scan decides, so recall is never traded away.
    """

    def __init__(self, counts: MemoryCounts, settings: SearchSettings) -> None:
        self._counts = counts
        self._settings = settings

    async def owned(self, user_id: str) -> int:
        """How many items ``user_id`` has (cached counts)."""
        return await self._counts.get(user_id)

    async def share(self, user_id: str) -> float:
        """The fraction of all items that are ``user_id``'s (cached counts)."""
        owned = await self._counts.get(user_id)
        total = max(await self._counts.get(None), owned, 1)
        return owned / total

    async def nearest(
        self,
        user_id: str,
        k: int,
        exact: Callable[[int], Awaitable[list[T]]],
        index: Callable[[int], Awaitable[list[T]]],
        oversample: float = 2.0,
        scoped: bool = False,
    ) -> list[T]:
        """Up to ``k`` items, from ``exact(k)`` or ``index(candidates)``.

        ``scoped`` says the index ranks only the user's items (Neo4j 2026's
        filtered search): then only the caller's filters are oversampled for,
        not the user's share of everyone's items.
        """
        owned = await self._counts.get(user_id)
        if owned <= self._settings.exact_scan_max:
            return await exact(k)
        total = owned if scoped else max(await self._counts.get(None), owned)
        cap = self._settings.max_index_candidates
        wanted = oversample * k
        candidates = min(cap, max(math.ceil(wanted), math.ceil(wanted * total / owned)))
        while True:
            hits = await index(candidates)
            if len(hits) >= k:
                return hits[:k]
            if candidates >= cap:
                return await exact(k)
            candidates = min(cap, candidates * 4)
