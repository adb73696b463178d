"""Fetching search candidates from both sides, overlapped to save wall-clock time.

The keyword side needs no vector, so it starts at once and runs in the graph
server while the query is being embedded; the vector side starts when the
vector is ready, and so does a small query for the cosine of the keyword
hits (HYBRID fuses both scores for every candidate). On two cores this puts
the embedding and the full-text search side by side instead of end to end.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from hippograph.models import MemoryFilter
from hippograph.ports import SearchStore
from hippograph.scoring import Candidate, SearchMethod
from hippograph.services.common_terms import CommonTerms
from hippograph.services.vectors import ScopedNearest

# Above this share of the index, a user's keyword search drops the user clause
# from the full-text query (walking a posting list that long costs more than
# over-fetching by 1/share and filtering by user_id afterwards).
UNSCOPED_SHARE = 0.25
MAX_KEYWORD_POOL = 1000
# How many more index neighbours than wanted a filtered vector search asks for
# first. A narrow filter (half of a large user's memories, say) left fewer
# than wanted after twice as many in about one search in ten, and the second
# index query that followed set the p95; four times costs a few milliseconds.
OVERSAMPLE = 2.0
NARROW_OVERSAMPLE = 4.0


def is_narrow(f: MemoryFilter) -> bool:
    """Whether the filter may drop many of an index's hits."""
    return any(
        value is not None
        for value in (
            f.kinds,
            f.categories,
            f.session_id,
            f.min_importance,
            f.created_after,
            f.created_before,
            f.domain,
        )
    )


class Sides(Protocol):
    """Where one target's candidates come from."""

    async def keyword(self) -> list[Candidate]:
        """The best keyword matches (no cosine yet)."""
        ...

    async def vector(self, vector: Sequence[float]) -> list[Candidate]:
        """The nearest neighbours."""
        ...

    async def cosines(self, ids: Sequence[str], vector: Sequence[float]) -> dict[str, float]:
        """Cosine to ``vector`` of the given candidates."""
        ...


async def _keyword_scope(nearest: ScopedNearest, user_id: str, pool: int) -> tuple[bool, int]:
    """Whether to scope the full-text query to the user, and how many hits to ask for."""
    share = await nearest.share(user_id)
    if share < UNSCOPED_SHARE:
        return True, pool
    return False, min(MAX_KEYWORD_POOL, math.ceil(pool / share))


def _within(hits: list[Candidate], radius: float | None) -> list[Candidate]:
    if radius is None:
        return hits
    return [h for h in hits if (h.similarity or 0.0) >= radius]


@dataclass(frozen=True)
class MemorySides:
    """Candidates among a user's memories."""

    store: SearchStore
    nearest: ScopedNearest
    user_id: str
    terms: list[str]
    memory_filter: MemoryFilter
    now: datetime
    pool: int
    keyword_pool: int
    radius: float | None
    common: CommonTerms

    async def keyword(self) -> list[Candidate]:
        scoped, limit = await _keyword_scope(self.nearest, self.user_id, self.keyword_pool)
        owned = await self.nearest.owned(self.user_id)
        terms = await self.common.prune(self.user_id, self.terms, owned)
        hits = await self.store.keyword(
            self.user_id, terms, limit, self.memory_filter, self.now, None, scoped
        )
        return hits[: self.pool]

    async def vector(self, vector: Sequence[float]) -> list[Candidate]:
        store, user_id, f, now = self.store, self.user_id, self.memory_filter, self.now
        hits = await self.nearest.nearest(
            user_id,
            self.pool,
            lambda k: store.vector_exact(user_id, vector, k, f, now),
            lambda n: store.vector_index(user_id, vector, n, f, now),
            NARROW_OVERSAMPLE if is_narrow(f) else OVERSAMPLE,
            scoped=store.scoped_vector_index(),
        )
        return _within(hits, self.radius)

    async def cosines(self, ids: Sequence[str], vector: Sequence[float]) -> dict[str, float]:
        return await self.store.cosines(ids, vector)


@dataclass(frozen=True)
class MemUnitSides:
    """Candidates among a user's MemUnits."""

    store: SearchStore
    nearest: ScopedNearest
    user_id: str
    terms: list[str]
    memory_filter: MemoryFilter
    pool: int
    radius: float | None

    async def keyword(self) -> list[Candidate]:
        scoped, limit = await _keyword_scope(self.nearest, self.user_id, self.pool)
        hits = await self.store.unit_keyword(
            self.user_id, self.terms, limit, self.memory_filter, None, scoped
        )
        return hits[: self.pool]

    async def vector(self, vector: Sequence[float]) -> list[Candidate]:
        store, user_id, f = self.store, self.user_id, self.memory_filter
        hits = await self.nearest.nearest(
            user_id,
            self.pool,
            lambda k: store.unit_vector_exact(user_id, vector, k, f),
            lambda n: store.unit_vector_index(user_id, vector, n, f),
        )
        return _within(hits, self.radius)

    async def cosines(self, ids: Sequence[str], vector: Sequence[float]) -> dict[str, float]:
        return await self.store.unit_cosines(ids, vector)


async def gather(
    method: SearchMethod, sides: Sides, embed: Callable[[], Awaitable[list[float]]]
) -> tuple[list[Candidate], list[Candidate], bool]:
    """Both sides' candidates (as ``method`` needs them), and whether it fell back.

    When the vector side finds nothing (empty index, radius too tight), the
    keyword side answers alone and its hits get seed 000's base relevance.
    """
    tasks: list[asyncio.Future[list[Candidate]]] = []
    try:
        keyword_task = None
        if method is not SearchMethod.VECTOR:
            keyword_task = asyncio.ensure_future(sides.keyword())
            tasks.append(keyword_task)
        by_vector: list[Candidate] = []
        by_keyword: list[Candidate] = []
        if method is SearchMethod.KEYWORD:
            assert keyword_task is not None
            return [], await keyword_task, False
        vector = await embed()
        vector_task = asyncio.ensure_future(sides.vector(vector))
        tasks.append(vector_task)
        if keyword_task is not None:
            by_keyword = await keyword_task
            similarity = await sides.cosines([c.id for c in by_keyword], vector)
            by_keyword = [replace(c, similarity=similarity.get(c.id)) for c in by_keyword]
        by_vector = await vector_task
        fallback = not by_vector
        if fallback and keyword_task is None:
            by_keyword = await sides.keyword()
        return by_vector, by_keyword, fallback
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
