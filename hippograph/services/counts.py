"""Per-user item counts for planning a search, served from a cache."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from hippograph.services.refreshed import Refreshed
from hippograph.services.search_pipeline.plan import Counts


class CachedCounts:
    """Per-user counts of one kind of item, cached and refreshed behind the request.

    A count only picks the search path, and both paths are correct, so a
    count a little old costs at most a slower query, never a wrong answer.
    Counting a large user's memories takes tens of milliseconds, so only the
    first search of a user waits for it (see ``Refreshed``).
    """

    def __init__(self, count: Callable[[str | None], Awaitable[int]], ttl_s: float) -> None:
        self._counts: Refreshed[str | None, int] = Refreshed(count, ttl_s)

    async def get(self, user_id: str | None) -> int:
        """Items of ``user_id`` (all users' for None)."""
        return await self._counts.get(user_id)

    async def of(self, user_id: str) -> Counts:
        """The user's items and everyone's."""
        return Counts(owned=await self.get(user_id), total=await self.get(None))
