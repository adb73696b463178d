"""How one search fetches its candidates, decided before any query runs.

A pure function of the request and a few counts: which user, which filter,
and each stage's own plan (``keyword``, ``vector``, ``entity_walk``, how
many hits seed the ``context`` stage). ``fetcher.CandidateFetcher`` executes
a plan; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from hippograph.models import MemoryFilter
from hippograph.modes import SearchMode, levels_for
from hippograph.scoring import SearchMethod
from hippograph.services.search_pipeline import entity_walk, keyword, vector
from hippograph.services.search_pipeline.entity_walk import EntityPlan
from hippograph.services.search_pipeline.keyword import KeywordPlan
from hippograph.services.search_pipeline.vector import VectorPlan
from hippograph.settings import SearchSettings


@dataclass(frozen=True, slots=True)
class Counts:
    """How many items (memories or MemUnits) the user has, and everyone has."""

    owned: int
    total: int

    @property
    def share(self) -> float:
        """The fraction of all items that are the user's."""
        return self.owned / max(self.total, self.owned, 1)


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """Everything the fetcher needs to get one search's candidates."""

    user_id: str
    units: bool  # MemUnits rather than memories
    method: SearchMethod
    memory_filter: MemoryFilter
    now: datetime
    keyword: KeywordPlan
    vector: VectorPlan
    entities: EntityPlan | None = None  # None: no walk
    context_seeds: int = 0  # the best hits whose neighbours join (0: no context stage)


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


def plan_search(
    *,
    user_id: str,
    units: bool,
    method: SearchMethod,
    mode: SearchMode,
    terms: Sequence[str],
    memory_filter: MemoryFilter,
    now: datetime,
    top_k: int,
    candidates: int,
    radius: float | None,
    counts: Counts,
    index_scoped: bool,
    settings: SearchSettings,
    query: str = "",
    entity_weight: float | None = None,
    context_weight: float = 0.0,
) -> SearchPlan:
    """The plan for one search of ``user_id``'s memories (or MemUnits when ``units``).

    ``counts`` are the user's and everyone's items of that kind;
    ``index_scoped`` says the vector index keeps to the user by itself.
    ``query``, ``entity_weight`` and ``context_weight`` decide the entity walk
    and the context stage (neither runs for MemUnits).
    """
    pool = max(candidates, top_k)
    if units:
        return SearchPlan(
            user_id,
            True,
            method,
            memory_filter,
            now,
            keyword.plan(terms, pool, counts, narrow=False, budget=None),
            vector.plan(
                pool, counts, narrow=False, index_scoped=False, radius=radius, settings=settings
            ),
        )
    f = replace(memory_filter, levels=levels_for(mode, memory_filter.levels))
    narrow = is_narrow(f)
    # Small users' lookups are cheap, and one term has nothing to prune.
    budget = (
        None
        if counts.owned < settings.common_term_min_memories or len(terms) <= 1
        else settings.keyword_posting_budget / max(counts.owned, 1)
    )
    walk = entity_walk.plan(
        query,
        method=method,
        entity_weight=entity_weight,
        memories=counts.owned,
        keep=pool,
        settings=settings,
    )
    return SearchPlan(
        user_id,
        False,
        method,
        f,
        now,
        keyword.plan(terms, pool, counts, narrow=narrow, budget=budget),
        vector.plan(
            pool,
            counts,
            narrow=narrow,
            index_scoped=index_scoped,
            radius=radius,
            settings=settings,
        ),
        walk,
        settings.context_seeds if context_weight > 0 else 0,
    )
