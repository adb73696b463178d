"""Executing a ``SearchPlan``: both sides' candidates, overlapped to save wall-clock time.

The keyword side needs no vector, so it starts at once and runs in the graph
server while the query is being embedded; the vector side starts when the
vector is ready, and so does a small query for the cosine of the keyword
hits (HYBRID fuses both scores for every candidate). On two cores this puts
the embedding and the full-text search side by side instead of end to end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from hippograph.scoring import Candidate, SearchMethod
from hippograph.search_plan import SearchPlan
from hippograph.services.common_terms import CommonTerms
from hippograph.services.search_store import SearchStore


@dataclass(frozen=True, slots=True)
class Fetched:
    """Both sides' candidates, and whether the keyword side answered alone."""

    by_vector: list[Candidate]
    by_keyword: list[Candidate]
    fallback: bool
    vector: list[float] | None = None  # the query's, when it was embedded


async def nearest(store: SearchStore, plan: SearchPlan, vector: Sequence[float]) -> list[Candidate]:
    """Up to ``plan.vector.k`` nearest neighbours the way the plan says, within its radius."""
    steps = plan.vector
    hits = None
    for size in steps.index_sizes:
        found = await _index(store, plan, vector, size)
        if len(found) >= steps.k:
            hits = found[: steps.k]
            break
    if hits is None:
        hits = await _exact(store, plan, vector, steps.k)
    if steps.radius is None:
        return hits
    return [h for h in hits if (h.similarity or 0.0) >= steps.radius]


async def _exact(
    store: SearchStore, plan: SearchPlan, vector: Sequence[float], k: int
) -> list[Candidate]:
    if plan.units:
        return await store.unit_vector_exact(plan.user_id, vector, k, plan.memory_filter)
    return await store.vector_exact(plan.user_id, vector, k, plan.memory_filter, plan.now)


async def _index(
    store: SearchStore, plan: SearchPlan, vector: Sequence[float], size: int
) -> list[Candidate]:
    if plan.units:
        return await store.unit_vector_index(plan.user_id, vector, size, plan.memory_filter)
    return await store.vector_index(plan.user_id, vector, size, plan.memory_filter, plan.now)


class CandidateFetcher:
    """Runs search plans against the store."""

    def __init__(self, store: SearchStore, common: CommonTerms) -> None:
        self._store = store
        self._common = common

    async def keyword(self, plan: SearchPlan) -> list[Candidate]:
        """The best keyword matches, without their cosine."""
        kw = plan.keyword
        if plan.units:
            hits = await self._store.unit_keyword(
                plan.user_id, kw.terms, kw.limit, plan.memory_filter, scoped=kw.scoped
            )
        else:
            terms = self._common.prune(plan.user_id, kw.terms, kw.term_budget)
            hits = await self._store.keyword(
                plan.user_id, terms, kw.limit, plan.memory_filter, plan.now, scoped=kw.scoped
            )
        return hits[: kw.keep]

    async def _cosines(
        self, plan: SearchPlan, ids: Sequence[str], vector: Sequence[float]
    ) -> dict[str, float]:
        if plan.units:
            return await self._store.unit_cosines(ids, vector)
        return await self._store.cosines(ids, vector)

    async def neighbours(
        self, plan: SearchPlan, positions: Sequence[tuple[str, int]], vector: Sequence[float]
    ) -> list[Candidate]:
        """The memories at ``positions`` (session id, seq) that pass the plan's filter."""
        if plan.units:
            return []
        return await self._store.neighbours(
            plan.user_id, positions, vector, plan.memory_filter, plan.now
        )

    async def fetch(self, plan: SearchPlan, embed: Callable[[], Awaitable[list[float]]]) -> Fetched:
        """Both sides' candidates, as ``plan.method`` needs them.

        When the vector side finds nothing (empty index, radius too tight),
        the keyword side answers alone and its hits get seed 000's base
        relevance.
        """
        tasks: list[asyncio.Future[list[Candidate]]] = []
        try:
            keyword_task = None
            if plan.method is not SearchMethod.VECTOR:
                keyword_task = asyncio.ensure_future(self.keyword(plan))
                tasks.append(keyword_task)
            if plan.method is SearchMethod.KEYWORD:
                assert keyword_task is not None
                return Fetched([], await keyword_task, False)
            vector = await embed()
            vector_task = asyncio.ensure_future(nearest(self._store, plan, vector))
            tasks.append(vector_task)
            by_keyword: list[Candidate] = []
            if keyword_task is not None:
                by_keyword = await keyword_task
                similarity = await self._cosines(plan, [c.id for c in by_keyword], vector)
                by_keyword = [replace(c, similarity=similarity.get(c.id)) for c in by_keyword]
            by_vector = await vector_task
            fallback = not by_vector
            if fallback and keyword_task is None:
                by_keyword = await self.keyword(plan)
            return Fetched(by_vector, by_keyword, fallback, vector)
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
