"""Executing a ``SearchPlan``: the stages' fetches, overlapped to save wall-clock time.

The keyword side needs no vector, so it starts at once and runs in the graph
server while the query is being embedded; the vector side starts when the
vector is ready, and so does a small query for the cosine of the keyword
hits (HYBRID fuses both scores for every candidate). On two cores this puts
the embedding and the full-text search side by side instead of end to end.
A small user's exact scan returns all their memories with their cosines,
so theirs come from it, and that query is not sent.

HYBRID memory searches also walk the entity graph from the query's entities
(``entity_walk``), starting at once like the keyword side; the best memories
only the walk found join the candidates, their cosine asked for in the same
query as the keyword hits'.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hippograph.scoring import Candidate, SearchMethod
from hippograph.services.common_terms import CommonTerms
from hippograph.services.search_pipeline import context, entity_walk, keyword, vector
from hippograph.services.search_pipeline.context import Position
from hippograph.services.search_pipeline.plan import SearchPlan
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


class CandidateFetcher:
    """Runs search plans against the store."""

    def __init__(
        self, store: SearchStore, common: CommonTerms, walker: EntityWalkStore | None = None
    ) -> None:
        self._store = store
        self._common = common
        self._walker = walker

    async def _cosines(
        self, plan: SearchPlan, ids: Sequence[str], query: Sequence[float]
    ) -> dict[str, float]:
        if plan.units:
            return await self._store.unit_cosines(ids, query)
        return await self._store.cosines(ids, query)

    async def _similarities(
        self,
        plan: SearchPlan,
        ids: Sequence[str],
        query: Sequence[float],
        vector_task: asyncio.Future[list[Candidate]],
    ) -> dict[str, float]:
        """The cosine of each of ``ids`` to the query.

        Asked of the graph while the vector side still runs, unless that side
        scans every item of the user (``VectorPlan.whole``): then it brings
        them (the exact scan's cosines, on the same scale), and only an id it
        did not return is asked, after it.
        """
        if not plan.vector.whole:
            return await self._cosines(plan, ids, query)
        known = {c.id: c.similarity for c in await vector_task if c.similarity is not None}
        missing = [i for i in ids if i not in known]
        return known | (await self._cosines(plan, missing, query) if missing else {})

    async def neighbours(
        self,
        plan: SearchPlan,
        positions: Sequence[Position],
        query: Sequence[float],
        ranked: Sequence[Candidate],
    ) -> list[Candidate]:
        """The context stage's fetch: the memories at ``positions`` not ranked yet."""
        return await context.fetch(self._store, plan, positions, query, ranked)

    async def fetch(self, plan: SearchPlan, embed: Callable[[], Awaitable[list[float]]]) -> Fetched:
        """Every stage's candidates, as ``plan`` asks for them.

        When the vector side finds nothing (empty index, radius too tight),
        the keyword side answers alone and its hits get note 000's base
        relevance. The walk runs when the plan has one (HYBRID memory searches).
        """
        tasks: list[asyncio.Future[Any]] = []
        try:
            keyword_task = None
            walk_task: asyncio.Future[dict[str, Candidate]] | None = None
            if plan.method is not SearchMethod.VECTOR:
                keyword_task = asyncio.ensure_future(keyword.fetch(self._store, self._common, plan))
                tasks.append(keyword_task)
            if plan.method is SearchMethod.KEYWORD:
                assert keyword_task is not None
                return Fetched([], await keyword_task, False)
            if plan.entities is not None:
                walk_task = asyncio.ensure_future(entity_walk.fetch(self._walker, plan))
                tasks.append(walk_task)
            query = await embed()
            vector_task = asyncio.ensure_future(vector.fetch(self._store, plan, query))
            tasks.append(vector_task)
            by_keyword: list[Candidate] = []
            walked: dict[str, Candidate] = {}
            walk_only: list[str] = []
            if keyword_task is not None:
                by_keyword = await keyword_task
                if walk_task is not None and plan.entities is not None:
                    walked = await walk_task
                    keyword_ids = {c.id for c in by_keyword}
                    walk_only = [m for m in walked if m not in keyword_ids][: plan.entities.keep]
                ids = [c.id for c in by_keyword] + walk_only
                similarity = await self._similarities(plan, ids, query, vector_task)
                by_keyword = [replace(c, similarity=similarity.get(c.id)) for c in by_keyword]
                for mid in walk_only:
                    walked[mid] = replace(walked[mid], similarity=similarity.get(mid))
            by_vector = await vector_task
            fallback = not by_vector
            radius = plan.vector.radius
            if radius is not None and not fallback:
                # The radius bounds every hit by its cosine, however it came;
                # only a keyword fallback (the vector side found none) answers
                # below it.
                by_keyword = [c for c in by_keyword if (c.similarity or 0.0) >= radius]
                walk_only = [m for m in walk_only if (walked[m].similarity or 0.0) >= radius]
            if fallback and keyword_task is None:
                by_keyword = await keyword.fetch(self._store, self._common, plan)
            # Scores for every candidate the walk reached; new ones only the best.
            known = {c.id for c in by_vector} | {c.id for c in by_keyword} | set(walk_only)
            by_entity = {mid: c for mid, c in walked.items() if mid in known}
            return Fetched(by_vector, by_keyword, fallback, by_entity, bool(walked), query)
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
