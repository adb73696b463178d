"""The vector stage: an exact scan for a small user, otherwise the index, growing.

Neither Neo4j 5 nor ArcadeDB can filter a vector index before it ranks. A
user with few items is scanned exactly (fast and perfect at that size). For
a larger user the index is asked for enough neighbours that, at the user's
share of all items, about ``oversample`` times the pool should be the
user's; when the filters leave fewer than the pool, the request grows
fourfold up to a cap, and past the cap the exact scan decides, so recall is
never traded away. Where the index ranks only the user's items (Neo4j
2026's filtered search), only the caller's filters are oversampled for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hippograph.scoring import Candidate
from hippograph.services.search_store import SearchStore
from hippograph.settings import SearchSettings

if TYPE_CHECKING:
    from hippograph.services.search_pipeline.plan import Counts, SearchPlan

# How many more index neighbours than wanted a filtered vector search asks for
# first. A narrow filter (half of a large user's memories, say) left fewer
# than wanted after twice as many in about one search in ten, and the second
# index query that followed set the p95; four times costs a few milliseconds.
OVERSAMPLE = 2.0
NARROW_OVERSAMPLE = 4.0
GROWTH = 4


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


def index_sizes(first: int, cap: int) -> tuple[int, ...]:
    """``first``, then growing by ``GROWTH`` up to ``cap`` (which ends the steps)."""
    sizes = [min(first, cap)]
    while sizes[-1] < cap:
        sizes.append(min(cap, sizes[-1] * GROWTH))
    return tuple(sizes)


def plan(
    k: int,
    counts: Counts,
    *,
    narrow: bool,
    index_scoped: bool,
    radius: float | None,
    settings: SearchSettings,
) -> VectorPlan:
    """The exact scan for a small user, otherwise the index oversampled for the user's share
    (and more under a ``narrow`` filter)."""
    if counts.owned <= settings.exact_scan_max:
        return VectorPlan(k, (), radius, whole=k >= counts.owned)
    total = counts.owned if index_scoped else max(counts.total, counts.owned)
    wanted = (NARROW_OVERSAMPLE if narrow else OVERSAMPLE) * k
    first = max(math.ceil(wanted), math.ceil(wanted * total / counts.owned))
    return VectorPlan(k, index_sizes(first, settings.max_index_candidates), radius)


async def fetch(store: SearchStore, search: SearchPlan, vector: Sequence[float]) -> list[Candidate]:
    """Up to ``k`` nearest neighbours the way the plan says, within its radius."""
    steps = search.vector
    hits = None
    for size in steps.index_sizes:
        found = await _index(store, search, vector, size)
        if len(found) >= steps.k:
            hits = found[: steps.k]
            break
    if hits is None:
        hits = await _exact(store, search, vector, steps.k)
    if steps.radius is None:
        return hits
    return [h for h in hits if (h.similarity or 0.0) >= steps.radius]


async def _exact(
    store: SearchStore, search: SearchPlan, vector: Sequence[float], k: int
) -> list[Candidate]:
    if search.units:
        return await store.unit_vector_exact(search.user_id, vector, k, search.memory_filter)
    return await store.vector_exact(search.user_id, vector, k, search.memory_filter, search.now)


async def _index(
    store: SearchStore, search: SearchPlan, vector: Sequence[float], size: int
) -> list[Candidate]:
    if search.units:
        return await store.unit_vector_index(search.user_id, vector, size, search.memory_filter)
    return await store.vector_index(search.user_id, vector, size, search.memory_filter, search.now)
