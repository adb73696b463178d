"""Executing a ``SearchPlan``: both sides' candidates, overlapped to save wall-clock time.

The keyword side needs no vector, so it starts at once and runs in the graph
server while the query is being embedded; the vector side starts when the
vector is ready, and so does a small query for the cosine of the keyword
hits (HYBRID fuses both scores for every candidate). On two cores this puts
the embedding and the full-text search side by side instead of end to end.
A small user's exact scan returns all their memories with their cosines,
so theirs come from it, and that query is not sent.

HYBRID memory searches also walk the entity graph from the query's entities
(:mod:`hippograph.entity_signal`), starting at once like the keyword side;
the best memories only the walk found join the candidates, their cosine asked
for in the same query as the keyword hits'.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hippograph.entities import entity_id
from hippograph.entity_signal import Seed, entity_scores
from hippograph.scoring import Candidate, SearchMethod
from hippograph.search_plan import SearchPlan
from hippograph.services.common_terms import CommonTerms
from hippograph.services.search_store import EntityWalkStore, SearchStore


@dataclass(frozen=True, slots=True)
class Fetched:
    """Both sides' candidates, and whether the keyword side answered alone."""

    by_vector: list[Candidate]
    by_keyword: list[Candidate]
    fallback: bool
    # Memories the entity walk reached, with their entity score: the
    # candidates above, and the best of those only the walk found.
    by_entity: dict[str, Candidate] = field(default_factory=dict)
    # Whether the query named entities the user's graph holds.
    entities: bool = False
    vector: list[float] | None = None  # the query's, when it was embedded


@dataclass(frozen=True, slots=True)
class EntityQuery:
    """What the entity walk of one search needs besides the plan."""

    norms: tuple[str, ...]  # every name the query may mean (hippograph.entities.query_norms)
    memories: int  # the user's memory count, for the seeds' weights
    cap: int  # entities mentioned by more memories are not walked
    keep: int  # memories only the walk found that join the candidates


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

    def __init__(
        self, store: SearchStore, common: CommonTerms, walker: EntityWalkStore | None = None
    ) -> None:
        self._store = store
        self._common = common
        self._walker = walker

    async def walk(self, plan: SearchPlan, query: EntityQuery) -> dict[str, Candidate]:
        """The memories the query's entities reach, best entity score first."""
        if self._walker is None or not query.norms:
            return {}
        found = await self._walker.walk(
            plan.user_id, query.norms, query.cap, plan.memory_filter, plan.now
        )
        norms = {entity_id(plan.user_id, n): n for n in query.norms}
        seeds = [Seed(e, degree, hits, norms.get(e, "")) for e, degree, hits in found]
        return entity_scores(seeds, query.memories)

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

    async def _similarities(
        self,
        plan: SearchPlan,
        ids: Sequence[str],
        vector: Sequence[float],
        vector_task: asyncio.Future[list[Candidate]],
    ) -> dict[str, float]:
        """The cosine of each of ``ids`` to the query.

        Asked of the graph while the vector side still runs, unless that side
        scans every item of the user (``VectorPlan.whole``): then it brings
        them (the exact scan's cosines, on the same scale), and only an id it
        did not return is asked, after it.
        """
        if not plan.vector.whole:
            return await self._cosines(plan, ids, vector)
        known = {c.id: c.similarity for c in await vector_task if c.similarity is not None}
        missing = [i for i in ids if i not in known]
        return known | (await self._cosines(plan, missing, vector) if missing else {})

    async def neighbours(
        self, plan: SearchPlan, positions: Sequence[tuple[str, int]], vector: Sequence[float]
    ) -> list[Candidate]:
        """The memories at ``positions`` (session id, seq) that pass the plan's filter."""
        if plan.units:
            return []
        return await self._store.neighbours(
            plan.user_id, positions, vector, plan.memory_filter, plan.now
        )

    async def fetch(
        self,
        plan: SearchPlan,
        embed: Callable[[], Awaitable[list[float]]],
        entities: EntityQuery | None = None,
    ) -> Fetched:
        """Both sides' candidates, as ``plan.method`` needs them, and the entity walk's.

        When the vector side finds nothing (empty index, radius too tight),
        the keyword side answers alone and its hits get note 000's base
        relevance. The walk runs for HYBRID memory searches given ``entities``.
        """
        tasks: list[asyncio.Future[Any]] = []
        try:
            keyword_task = None
            walk_task: asyncio.Future[dict[str, Candidate]] | None = None
            if plan.method is not SearchMethod.VECTOR:
                keyword_task = asyncio.ensure_future(self.keyword(plan))
                tasks.append(keyword_task)
            if plan.method is SearchMethod.KEYWORD:
                assert keyword_task is not None
                return Fetched([], await keyword_task, False)
            if entities is not None and plan.method is SearchMethod.HYBRID and not plan.units:
                walk_task = asyncio.ensure_future(self.walk(plan, entities))
                tasks.append(walk_task)
            vector = await embed()
            vector_task = asyncio.ensure_future(nearest(self._store, plan, vector))
            tasks.append(vector_task)
            by_keyword: list[Candidate] = []
            walked: dict[str, Candidate] = {}
            walk_only: list[str] = []
            if keyword_task is not None:
                by_keyword = await keyword_task
                if walk_task is not None:
                    walked = await walk_task
                    keyword_ids = {c.id for c in by_keyword}
                    assert entities is not None
                    walk_only = [m for m in walked if m not in keyword_ids][: entities.keep]
                ids = [c.id for c in by_keyword] + walk_only
                similarity = await self._similarities(plan, ids, vector, vector_task)
                by_keyword = [replace(c, similarity=similarity.get(c.id)) for c in by_keyword]
                for mid in walk_only:
                    walked[mid] = replace(walked[mid], similarity=similarity.get(mid))
            by_vector = await vector_task
            fallback = not by_vector
            if fallback and keyword_task is None:
                by_keyword = await self.keyword(plan)
            # Scores for every candidate the walk reached; new ones only the best.
            known = {c.id for c in by_vector} | {c.id for c in by_keyword} | set(walk_only)
            by_entity = {mid: c for mid, c in walked.items() if mid in known}
            return Fetched(by_vector, by_keyword, fallback, by_entity, bool(walked), vector)
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
