"""The search plan: exact scan or index, pool sizes, growth, keyword scope, term budget,
the entity walk, the context stage's seeds and the speakers' names."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hippograph.models import MemoryFilter, MemoryKind
from hippograph.modes import NORMAL_LEVELS, REVIEW_LEVELS, SearchMode
from hippograph.scoring import Candidate, SearchMethod
from hippograph.services.search_pipeline import context, speakers
from hippograph.services.search_pipeline.plan import Counts, SearchPlan, plan_search
from hippograph.services.search_pipeline.vector import index_sizes
from hippograph.settings import SearchSettings
from tests.support import T0

SETTINGS = SearchSettings(
    exact_scan_max=100,
    max_index_candidates=4000,
    common_term_min_memories=5000,
    keyword_posting_budget=20_000,
)


def _plan(counts: Counts, **changes: Any) -> SearchPlan:
    args: dict[str, Any] = {
        "user_id": "ann",
        "units": False,
        "method": SearchMethod.HYBRID,
        "mode": SearchMode.NORMAL,
        "terms": ["coffe", "dawn"],
        "memory_filter": MemoryFilter(),
        "now": T0,
        "top_k": 10,
        "candidates": 50,
        "radius": None,
        "counts": counts,
        "index_scoped": False,
        "settings": SETTINGS,
    }
    return plan_search(**(args | changes))


def test_a_small_user_is_scanned_exactly_and_fully_scoped() -> None:
    plan = _plan(Counts(owned=100, total=100_000))
    assert plan.vector.exact
    assert (plan.vector.k, plan.vector.index_sizes) == (50, ())
    assert (plan.keyword.scoped, plan.keyword.limit, plan.keyword.keep) == (True, 50, 50)
    assert plan.keyword.term_budget is None
    assert plan.memory_filter.levels == NORMAL_LEVELS


def test_the_pool_is_at_least_top_k() -> None:
    plan = _plan(Counts(owned=10, total=10), top_k=80, candidates=20)
    assert (plan.vector.k, plan.keyword.keep) == (80, 80)


def test_a_large_user_asks_the_index_for_twice_the_pool_at_their_share() -> None:
    # A tenth of all memories: 2 × 50 wanted × 10 = 1,000, growing fourfold to the cap.
    plan = _plan(Counts(owned=10_000, total=100_000))
    assert not plan.vector.exact
    assert plan.vector.index_sizes == (1000, 4000)


def test_past_the_cap_the_exact_scan_decides() -> None:
    # A hundredth of all memories: 10,000 wanted, capped at 4,000; the fetcher
    # falls back to the exact scan when even that leaves too few.
    plan = _plan(Counts(owned=1000, total=100_000))
    assert plan.vector.index_sizes == (4000,)


def test_growth_is_fourfold_up_to_the_cap() -> None:
    assert index_sizes(100, 4000) == (100, 400, 1600, 4000)
    assert index_sizes(1000, 1000) == (1000,)
    assert index_sizes(5000, 4000) == (4000,)


def test_a_narrow_filter_oversamples_fourfold_and_widens_the_keyword_pool() -> None:
    narrow = MemoryFilter(kinds=(MemoryKind.EVENT,))
    plan = _plan(Counts(owned=50_000, total=100_000), memory_filter=narrow)
    # Half of all memories: 4 × 50 × 2 = 400.
    assert plan.vector.index_sizes == (400, 1600, 4000)
    # Half the index is the user's: unscoped, 200 / 0.5 hits asked for, 50 kept.
    assert (plan.keyword.scoped, plan.keyword.limit, plan.keyword.keep) == (False, 400, 50)
    assert plan.memory_filter.kinds == (MemoryKind.EVENT,)


def test_a_scoped_index_oversamples_for_the_filter_only() -> None:
    plan = _plan(Counts(owned=1000, total=100_000), index_scoped=True)
    assert plan.vector.index_sizes == (100, 400, 1600, 4000)


def test_a_user_owning_most_of_the_index_drops_the_user_clause_up_to_a_cap() -> None:
    plan = _plan(Counts(owned=100_000, total=100_000), candidates=400)
    assert (plan.keyword.scoped, plan.keyword.limit) == (False, 400)
    narrow = MemoryFilter(session_id="ses_one")
    plan = _plan(Counts(owned=30_000, total=100_000), candidates=400, memory_filter=narrow)
    assert (plan.keyword.scoped, plan.keyword.limit, plan.keyword.keep) == (False, 1000, 400)


def test_large_users_get_a_term_budget_in_their_memories() -> None:
    plan = _plan(Counts(owned=40_000, total=100_000))
    assert plan.keyword.term_budget == 0.5
    one_term = _plan(Counts(owned=40_000, total=100_000), terms=["coffe"])
    assert one_term.keyword.term_budget is None


def test_memunits_keep_their_filter_and_every_term() -> None:
    session = MemoryFilter(session_id="ses_one")
    plan = _plan(Counts(owned=40_000, total=100_000), units=True, memory_filter=session)
    assert plan.units
    assert plan.memory_filter == session
    assert plan.keyword.term_budget is None
    # A MemUnit's index is never scoped, and a session filter is not oversampled for.
    assert plan.vector.index_sizes == (250, 1000, 4000)
    assert (plan.keyword.scoped, plan.keyword.limit) == (False, 125)


def test_review_mode_sees_every_level_and_an_explicit_filter_narrows_it() -> None:
    assert _plan(Counts(1, 1), mode=SearchMode.REVIEW).memory_filter.levels == REVIEW_LEVELS
    wanted = MemoryFilter(levels=(REVIEW_LEVELS[-1],))
    plan = _plan(Counts(1, 1), mode=SearchMode.REVIEW, memory_filter=wanted)
    assert plan.memory_filter.levels == (REVIEW_LEVELS[-1],)


def test_an_empty_graph_has_a_share_and_is_scanned_exactly() -> None:
    assert Counts(0, 0).share == 0.0
    assert _plan(Counts(0, 0)).vector.exact


def test_the_entity_walk_is_planned_only_for_hybrid_memory_searches_that_weigh_entities() -> None:
    counts = Counts(owned=100, total=100)
    walk = _plan(counts, query="Dinner with Maria in Porto", entity_weight=0.2).entities
    assert walk is not None
    assert "porto" in walk.norms
    assert (walk.memories, walk.keep) == (100, 50)
    assert len(walk.norms) <= SETTINGS.entity_max_names
    for changes in (
        {"entity_weight": 0.0},
        {"entity_weight": 0.2, "method": SearchMethod.VECTOR},
        {"entity_weight": 0.2, "units": True},
    ):
        assert _plan(counts, query="Maria in Porto", **changes).entities is None, changes


def test_the_context_stage_is_seeded_only_when_its_weight_counts() -> None:
    counts = Counts(owned=100, total=100)
    assert _plan(counts, context_weight=0.1).context_seeds == SETTINGS.context_seeds
    assert _plan(counts, context_weight=0.0).context_seeds == 0
    assert _plan(counts, context_weight=0.1, units=True).context_seeds == 0


def test_the_context_stage_asks_for_the_turns_beside_its_seeds_that_no_candidate_holds() -> None:
    plan = replace(_plan(Counts(owned=100, total=100), context_weight=0.1), context_seeds=2)

    def hit(memory_id: str, session: str | None, seq: int | None) -> Candidate:
        return Candidate(memory_id, 0.5, T0, T0, session_id=session, seq=seq)

    ranked = [hit("a", "s1", 0), hit("b", "s1", 5), hit("c", "s1", 1), hit("d", "s2", 9)]
    # a's neighbours: seq -1 does not exist, seq 1 is c's; b's: 4 and 6. d is no seed.
    assert context.plan(plan, ranked) == [("s1", 4), ("s1", 6)]
    assert context.plan(plan, [hit("x", None, None)]) == []


def test_the_query_keeps_its_names_only_in_the_weight_they_are_given() -> None:
    kept = speakers.plan("Where is Emi going?", ["Emi"], 1.0)
    assert kept.stripped == kept.named == "Where is Emi going?"
    weighed = speakers.plan("Where is Emi going?", ["Emi"], 0.3)
    assert "Emi" not in weighed.stripped
    assert (weighed.named, weighed.weight) == ("Where is Emi going?", 0.3)
