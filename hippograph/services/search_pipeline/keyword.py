"""The keyword stage: the full-text index, scoped to the user while that is cheaper."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hippograph.scoring import Candidate
from hippograph.services.common_terms import CommonTerms
from hippograph.services.search_store import SearchStore

if TYPE_CHECKING:
    from hippograph.services.search_pipeline.plan import Counts, SearchPlan

# Above this share of the index, a user's keyword search drops the user clause
# from the full-text query (walking a posting list that long costs more than
# over-fetching by 1/share and filtering by user_id afterwards).
UNSCOPED_SHARE = 0.25
MAX_KEYWORD_POOL = 1000


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


def plan(
    terms: Sequence[str], pool: int, counts: Counts, *, narrow: bool, budget: float | None
) -> KeywordPlan:
    """Ask for ``pool`` hits (four times as many under a ``narrow`` filter, which drops
    hits after the index ranked them), scoped to the user while their share is small."""
    wanted = min(MAX_KEYWORD_POOL, pool * 4) if narrow else pool
    share = counts.share
    if share < UNSCOPED_SHARE:
        return KeywordPlan(tuple(terms), True, wanted, pool, budget)
    limit = min(MAX_KEYWORD_POOL, math.ceil(wanted / share))
    return KeywordPlan(tuple(terms), False, limit, pool, budget)


async def fetch(store: SearchStore, common: CommonTerms, search: SearchPlan) -> list[Candidate]:
    """The best keyword matches, without their cosine."""
    kw = search.keyword
    if search.units:
        hits = await store.unit_keyword(
            search.user_id, kw.terms, kw.limit, search.memory_filter, scoped=kw.scoped
        )
    else:
        terms = common.prune(search.user_id, kw.terms, kw.term_budget)
        hits = await store.keyword(
            search.user_id, terms, kw.limit, search.memory_filter, search.now, scoped=kw.scoped
        )
    return hits[: kw.keep]
