"""How one search fetches its candidates, decided before any query runs.

A pure function of the request and a few counts: which user, which filter,
how many keyword hits to ask the full-text index for and whether to scope it
to the user inside the index, whether common terms may be pruned, and for the
vector side either an exact scan or the sizes to ask the vector index for, in
turn, before falling back to the exact scan. ``CandidateFetcher``
(``hippograph/services/candidates.py``) executes a plan; nothing here does I/O.

Why the vector side looks like this: neither Neo4j 5 nor ArcadeDB can filter
a vector index before it ranks. A user with few items is scanned exactly
(fast and perfect at that size). For a larger user the index is asked for
enough neighbours that, at the user's share of all items, about
``oversample`` times the pool should be the user's; when the filters leave
fewer than the pool, the request grows fourfold up to a cap, and past the cap
the exact scan decides, so recall is never traded away. Where the index ranks
only the user's items (Neo4j 2026's filtered search), only the caller's
filters are oversampled for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from hippograph.models import MemoryFilter
from hippograph.modes import SearchMode, levels_for
from hippograph.scoring import SearchMethod
from hippograph.settings import SearchSettings

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
GROWTH = 4


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
class KeywordPlan:
    """How the full-text side is asked."""

    terms: tuple[str, ...]
    scoped: bool  # the user clause inside the full-text query
    limit: int  # hits asked of the index
    keep: int  # hits kept, best first
    # None: every term is looked up; otherwise the posting budget as a share
    # of the user's memories (see hippograph/services/common_terms.py).
    term_budget: float | None


@dataclass(frozen=True, slots=True)
class VectorPlan:
    """How the nearest neighbours are found: the index, growing, then exactly."""

    k: int
    # Sizes to ask the vector index for, in turn, until one leaves k hits;
    # past the last, or when there are none, the exact scan answers.
    index_sizes: tuple[int, ...]
    radius: float | None
    # The exact scan returns each of the user's items that passes the filter
    # (k is at least their count): the keyword hits' cosines come with it,
    # and only a hit it did not return (an item newer than the count) is asked.
    whole: bool = False

    @property
    def exact(self) -> bool:
        """Whether the exact scan answers straight away."""
        return not self.index_sizes


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


def index_sizes(first: int, cap: int) -> tuple[int, ...]:
    """``first``, then growing by ``GROWTH`` up to ``cap`` (which ends the steps)."""
    sizes = [min(first, cap)]
    while sizes[-1] < cap:
        sizes.append(min(cap, sizes[-1] * GROWTH))
    return tuple(sizes)


def plan_vector(
    k: int,
    counts: Counts,
    oversample: float,
    index_scoped: bool,
    radius: float | None,
    settings: SearchSettings,
) -> VectorPlan:
    """The exact scan for a small user, otherwise the index oversampled for the user's share."""
    if counts.owned <= settings.exact_scan_max:
        return VectorPlan(k, (), radius, whole=k >= counts.owned)
    total = counts.owned if index_scoped else max(counts.total, counts.owned)
    wanted = oversample * k
    first = max(math.ceil(wanted), math.ceil(wanted * total / counts.owned))
    return VectorPlan(k, index_sizes(first, settings.max_index_candidates), radius)


def _keyword_scope(pool: int, counts: Counts) -> tuple[bool, int]:
    """Whether to scope the full-text query to the user, and how many hits to ask for."""
    share = counts.share
    if share < UNSCOPED_SHARE:
        return True, pool
    return False, min(MAX_KEYWORD_POOL, math.ceil(pool / share))


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
) -> SearchPlan:
    """The plan for one search of ``user_id``'s memories (or MemUnits when ``units``).

    ``counts`` are the user's and everyone's items of that kind;
    ``index_scoped`` says the vector index keeps to the user by itself.
    """
    pool = max(candidates, top_k)
    if units:
        scoped, limit = _keyword_scope(pool, counts)
        return SearchPlan(
            user_id,
            True,
            method,
            memory_filter,
            now,
            KeywordPlan(tuple(terms), scoped, limit, pool, None),
            plan_vector(pool, counts, OVERSAMPLE, False, radius, settings),
        )
    f = replace(memory_filter, levels=levels_for(mode, memory_filter.levels))
    narrow = is_narrow(f)
    oversample = NARROW_OVERSAMPLE if narrow else OVERSAMPLE
    # A narrow filter drops keyword hits after the index ranked them.
    scoped, limit = _keyword_scope(min(MAX_KEYWORD_POOL, pool * 4) if narrow else pool, counts)
    # Small users' lookups are cheap, and one term has nothing to prune.
    budget = (
        None
        if counts.owned < settings.common_term_min_memories or len(terms) <= 1
        else settings.keyword_posting_budget / max(counts.owned, 1)
    )
    return SearchPlan(
        user_id,
        False,
        method,
        f,
        now,
        KeywordPlan(tuple(terms), scoped, limit, pool, budget),
        plan_vector(pool, counts, oversample, index_scoped, radius, settings),
    )
