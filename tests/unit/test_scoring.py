"""Each formula pinned to a value computed by hand."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from hippograph.querytime import TimeWindow
from hippograph.scoring import (
    Breakdown,
    Candidate,
    CosineRange,
    ScoringStrategy,
    ScoringWeights,
    SearchMethod,
    cosine_range,
    multiplicative_score,
    rank,
    rrf_relevance,
    weighted_score,
    with_entities,
    with_ranks,
)
from tests.support import T0, candidate

W = ScoringWeights()


def test_weighted_is_note_001() -> None:
    # 0.5·0.8 + 0.2·0.99^10 + 0.3·0.5 = 0.4 + 0.2·0.904382075 + 0.15
    final, recency = weighted_score(0.8, 10, 0.5, W)
    assert recency == pytest.approx(0.904382075)
    assert final == pytest.approx(0.730876415)


def test_weighted_takes_weights_per_request() -> None:
    final, _ = weighted_score(1.0, 0, 0.0, ScoringWeights(alpha=1, beta=0, gamma=0))
    assert final == 1.0
    assert weighted_score(0.5, -5, 0.0, W)[1] == 1.0  # a future access is "just now"


def test_multiplicative_is_note_000() -> None:
    # (0.8·0.8 + 0.2·1/(1+1))·(0.8 + 0.4·0.5) = 0.74·1.0
    assert multiplicative_score(0.8, 1, 0.5) == pytest.approx((0.74, 0.5))
    # (0.64 + 0.2·0.25)·(0.8 + 0.4) = 0.69·1.2
    assert multiplicative_score(0.8, 3, 1.0)[0] == pytest.approx(0.828)


def test_rrf_is_scaled_to_one_for_first_everywhere() -> None:
    assert rrf_relevance([1, 1], 60, 2) == pytest.approx(1.0)
    # (1/61 + 1/63) / (2/61) = 7564/7686
    assert rrf_relevance([1, 3], 60, 2) == pytest.approx(7564 / 7686)
    assert rrf_relevance([None, 1], 60, 2) == pytest.approx(0.5)


def _c(id: str, sim: float | None, kw: float | None, **kw_args: Any) -> Candidate:
    return candidate(
        id,
        similarity=sim,
        keyword_score=kw,
        vector_rank=1 if sim is not None else None,
        keyword_rank=1 if kw is not None else None,
        **kw_args,
    )


# Vector candidates at cosine 1 and 0: with them among the candidates the
# query's cosine range is [0, 1], so a semantic score is the cosine itself
# and the stages after it can be pinned by hand (the range has tests of its own).
SPAN = (_c("top", 1.0, None), _c("bottom", 0.0, None))


def _rank_alone(candidates: list[Candidate], **options: Any) -> list[tuple[Candidate, Breakdown]]:
    """``rank`` over ``candidates`` only (WEIGHTED, default weights, now T0 unless given)."""
    defaults: dict[str, Any] = {"strategy": ScoringStrategy.WEIGHTED, "weights": W, "now": T0}
    return rank(candidates, **(defaults | options))


def _rank(candidates: list[Candidate], **options: Any) -> list[tuple[Candidate, Breakdown]]:
    """``_rank_alone`` over ``candidates`` and SPAN; SPAN left out of the answer."""
    ranked = _rank_alone([*candidates, *SPAN], **options)
    return [(c, br) for c, br in ranked if c not in SPAN]


def _by_id(
    candidates: list[Candidate], method: SearchMethod, **options: Any
) -> dict[str, Breakdown]:
    """Each candidate's breakdown, ranked with the default weights (WEIGHTED)."""
    return {c.id: br for c, br in _rank(candidates, method=method, **options)}


def test_hybrid_is_a_convex_combination_of_cosine_and_normalised_bm25() -> None:
    a, b = _c("a", 0.9, 10.0), _c("b", 0.5, 20.0)
    ranked = _rank([b, a], method=SearchMethod.HYBRID)
    by_id = {c.id: br for c, br in ranked}
    # keyword: a 10/20 = 0.5, b 1.0; relevance a = 0.6·0.9 + 0.4·0.5 = 0.74, b = 0.3 + 0.4 = 0.70
    assert (by_id["a"].keyword, by_id["b"].keyword) == (0.5, 1.0)
    assert by_id["a"].relevance == pytest.approx(0.74)
    assert by_id["b"].relevance == pytest.approx(0.70)
    # no neighbours, no period named: fused = relevance / (1 + 0.35)
    assert by_id["a"].fused == pytest.approx(0.74 / 1.35)
    # final = 0.5·fused + 0.2·0.99^0 + 0.3·0.5
    assert by_id["a"].final == pytest.approx(0.5 * 0.74 / 1.35 + 0.2 + 0.15)
    assert [c.id for c, _ in ranked] == ["a", "b"]


def test_vector_and_keyword_alone_use_their_own_score() -> None:
    a, b = _c("a", 0.9, 10.0), _c("b", 0.5, 20.0)
    vector = _rank([a, b], method=SearchMethod.VECTOR)
    keyword = _rank([a, b], method=SearchMethod.KEYWORD)
    assert [c.id for c, _ in vector] == ["a", "b"]
    assert vector[0][1].relevance == pytest.approx(0.9)
    assert [c.id for c, _ in keyword] == ["b", "a"]
    assert keyword[0][1].relevance == 1.0


def test_a_neighbour_in_the_conversation_lends_relevance() -> None:
    a = _c("a", 0.9, 10.0, session_id="s", seq=4)
    b = _c("b", 0.5, 20.0, session_id="s", seq=5)
    far = _c("c", 0.5, 20.0, session_id="s", seq=9)
    by_id = _by_id([a, b, far], SearchMethod.HYBRID)
    assert by_id["a"].context == pytest.approx(0.35 * 0.70)
    assert by_id["b"].context == pytest.approx(0.35 * 0.74)
    assert by_id["c"].context == 0.0
    assert by_id["b"].fused == pytest.approx((0.70 + 0.35 * 0.74) / 1.35)


def test_a_named_period_favours_memories_from_it() -> None:
    inside = _c("in", 0.5, None)
    outside = candidate("out", created_at=T0 - timedelta(days=400), similarity=0.52, vector_rank=2)
    window = TimeWindow(T0 - timedelta(days=1), T0 + timedelta(days=1))
    ranked = _rank([outside, inside], method=SearchMethod.VECTOR, window=window)
    assert [c.id for c, _ in ranked] == ["in", "out"]
    assert ranked[0][1].time_match == 0.1
    assert ranked[0][1].fused == pytest.approx((0.5 + 0.1) / 1.45)


def test_a_position_is_as_relevant_as_its_best_memory() -> None:
    # an event and a fact of one message stand at one position; the turn
    # after it borrows from the better of the two, whichever comes last
    event = _c("event", 0.9, None, session_id="s", seq=4)
    fact = _c("fact", 0.2, None, session_id="s", seq=4)
    after = _c("after", 0.1, None, session_id="s", seq=5)
    by_id = _by_id([event, fact, after], SearchMethod.VECTOR)
    assert by_id["after"].context == pytest.approx(0.35 * 0.9)


def test_a_named_period_matches_the_time_a_memory_names() -> None:
    # said a year before, about a day inside the window ("yesterday" then)
    told_later = candidate(
        "about",
        created_at=T0 + timedelta(days=3),
        similarity=0.5,
        about=(T0 - timedelta(hours=12), T0 + timedelta(hours=12)),
    )
    elsewhere = replace(
        told_later, id="else", about=(T0 + timedelta(days=40), T0 + timedelta(days=41))
    )
    window = TimeWindow(T0 - timedelta(days=1), T0 + timedelta(days=1))
    by_id = _by_id([told_later, elsewhere], SearchMethod.VECTOR, window=window)
    assert by_id["about"].time_match == 0.1
    assert by_id["else"].time_match == 0.0


def test_a_question_asking_when_favours_memories_that_name_a_time() -> None:
    timed = candidate("timed", similarity=0.5, about=(T0, T0 + timedelta(days=1)))
    untimed = replace(timed, id="untimed", about=None, similarity=0.55)
    ranked = _rank([untimed, timed], method=SearchMethod.VECTOR, asks_when=True)
    assert [c.id for c, _ in ranked] == ["timed", "untimed"]
    assert ranked[0][1].fused == pytest.approx(0.6 / 1.45)  # (0.5 + 0.1) / (1 + 0.35 + 0.1)
    assert ranked[1][1].fused == pytest.approx(0.55 / 1.45)
    assert ranked[1][1].time_match == 0.0


def test_fallback_gives_every_keyword_hit_half_relevance() -> None:
    ranked = _rank_alone(
        [_c("a", None, 3.0), _c("b", None, 6.0)], method=SearchMethod.VECTOR, fallback=True
    )
    assert {br.relevance for _, br in ranked} == {0.5}
    # equal finals: the better keyword match first
    assert [c.id for c, _ in ranked] == ["b", "a"]
    assert all(br.fallback for _, br in ranked)


def test_rrf_strategy_ranks_by_fused_ranks() -> None:
    a = _c("a", 0.9, None)
    b = _c("b", None, 5.0)
    both = candidate("both", similarity=0.8, keyword_score=4.0, vector_rank=2, keyword_rank=2)
    ranked = _rank_alone([a, b, both], method=SearchMethod.HYBRID, strategy=ScoringStrategy.RRF)
    assert ranked[0][0].id == "both"
    assert ranked[0][1].relevance == pytest.approx((2 / 62) / (2 / 61))


def test_multiplicative_strategy_uses_age_since_creation() -> None:
    old = candidate("old", created_at=T0 - timedelta(days=3), similarity=0.8, vector_rank=1)
    [(_, br)] = _rank(
        [old],
        method=SearchMethod.VECTOR,
        strategy=ScoringStrategy.MULTIPLICATIVE,
        weights=ScoringWeights(context_weight=0.0),
    )
    assert br.recency == pytest.approx(0.25)
    assert br.final == pytest.approx((0.8 * 0.8 + 0.2 * 0.25) * 1.0)


def test_ties_are_broken_by_id() -> None:
    ranked = _rank_alone([_c("b", 0.5, None), _c("a", 0.5, None)], method=SearchMethod.VECTOR)
    assert [c.id for c, _ in ranked] == ["a", "b"]


def test_merging_numbers_each_side_and_keeps_both_scores() -> None:
    vector = [_c("x", 0.9, None), _c("y", 0.8, None)]
    keyword = [_c("y", 0.8, 7.0), _c("z", 0.1, 3.0)]
    merged = {c.id: c for c in with_ranks(vector, keyword)}
    assert (merged["x"].vector_rank, merged["x"].keyword_rank, merged["x"].keyword_score) == (
        1,
        None,
        None,
    )
    assert (merged["y"].vector_rank, merged["y"].keyword_rank, merged["y"].keyword_score) == (
        2,
        1,
        7.0,
    )
    assert (merged["z"].vector_rank, merged["z"].keyword_rank, merged["z"].similarity) == (
        None,
        2,
        0.1,
    )


WE = ScoringWeights(entity_weight=0.2)


def test_the_entity_signal_joins_fused_only_when_the_query_named_entities() -> None:
    a = _c("a", 0.9, 10.0, entity_score=0.5)
    b = _c("b", 0.5, 20.0)
    ranked = _rank([a, b], method=SearchMethod.HYBRID, weights=WE, entities=True)
    by_id = {c.id: br for c, br in ranked}
    # relevance a = 0.74 (above); entity = 0.2·0.5 = 0.1; divisor 1 + 0.35 + 0.2
    assert by_id["a"].entity == pytest.approx(0.1)
    assert by_id["a"].fused == pytest.approx((0.74 + 0.1) / 1.55)
    # b mentions none of the query's entities: 0.70 / 1.55
    assert by_id["b"].entity == 0.0
    assert by_id["b"].fused == pytest.approx(0.70 / 1.55)
    # without entities in the query the score is ignored and the divisor is as before
    plain = _rank([a, b], method=SearchMethod.HYBRID, weights=WE)
    assert {c.id: br.fused for c, br in plain}["a"] == pytest.approx(0.74 / 1.35)
    assert {c.id: br.entity for c, br in plain}["a"] == 0.0


def test_an_entity_weight_of_zero_leaves_the_ranking_as_it_was() -> None:
    a = _c("a", 0.5, 10.0, entity_score=1.0)
    b = _c("b", 0.6, 10.0)
    for off in (ScoringWeights(entity_weight=0.0), ScoringWeights()):  # None counts as 0
        ranked = _rank([a, b], method=SearchMethod.HYBRID, weights=off, entities=True)
        assert [c.id for c, _ in ranked] == ["b", "a"]
        # 0.6·0.6 + 0.4·1.0 = 0.76, divided by 1.35 as with no entities
        assert ranked[0][1].fused == pytest.approx(0.76 / 1.35)


def test_memories_only_the_walk_found_join_without_ranks() -> None:
    merged = with_ranks([_c("v", 0.8, None)], [_c("k", 0.4, 3.0)])
    walked = {
        "k": _c("k", None, None, entity_score=0.75),
        "w": _c("w", 0.3, None, entity_score=1.0),
    }
    out = {c.id: c for c in with_entities(merged, walked)}
    assert out["v"].entity_score is None
    assert (out["k"].entity_score, out["k"].keyword_rank) == (0.75, 1)
    assert out["w"].entity_score == 1.0
    assert (out["w"].vector_rank, out["w"].keyword_rank, out["w"].similarity) == (None, None, 0.3)
    # a walk-only hit: relevance from its cosine alone, 0.6·0.3; entity 0.2·1.0
    ranked = _rank(list(out.values()), method=SearchMethod.HYBRID, weights=WE, entities=True)
    w = next(br for c, br in ranked if c.id == "w")
    assert w.fused == pytest.approx((0.18 + 0.2) / 1.55)
    assert w.methods == ()


def test_the_semantic_score_places_a_cosine_between_the_querys_best_and_last_candidates() -> None:
    # e5-small's cosines for a question span a narrow band: 0.80 to 0.86 here
    best, middle, last = _c("best", 0.86, None), _c("middle", 0.83, None), _c("last", 0.80, None)
    keyword_only = candidate("kw", similarity=0.7, keyword_score=3.0, keyword_rank=1)
    by_id = {
        c.id: br
        for c, br in _rank_alone([best, middle, last, keyword_only], method=SearchMethod.VECTOR)
    }
    assert by_id["best"].semantic == 1.0
    assert by_id["middle"].semantic == pytest.approx(0.5)
    assert by_id["last"].semantic == 0.0
    assert by_id["kw"].semantic == 0.0  # below the vector side's last: clipped
    assert cosine_range([middle]) == CosineRange(0.83, 0.83)
    assert CosineRange(0.83, 0.83).semantic(0.83) == 1.0
    assert cosine_range([keyword_only]) == CosineRange(0.7, 0.7)  # no vector side: all known
    assert cosine_range([_c("none", None, 2.0)]) is None


def test_a_narrow_band_of_cosines_still_outranks_importance() -> None:
    # Raw, 0.86 against 0.80 moved fused by 0.02, and importance (0.3 of
    # final) decided: the weaker match of the more important memory won.
    close = replace(_c("close", 0.86, None), importance=0.3)
    loose = replace(_c("loose", 0.80, None), importance=0.9)
    ranked = _rank_alone([loose, close], method=SearchMethod.VECTOR)
    assert [c.id for c, _ in ranked] == ["close", "loose"]


def test_a_summary_counts_summary_weight_of_its_relevance() -> None:
    event = _c("event", 0.9, None, kind="event")
    episode = _c("episode", 0.9, None, kind="episodic")
    reflection = _c("reflection", 0.9, None, kind="reflection")
    by_id = _by_id([episode, reflection, event], SearchMethod.VECTOR)
    assert by_id["event"].relevance == pytest.approx(0.9)
    assert by_id["episode"].relevance == pytest.approx(0.9 * W.summary_weight)
    assert by_id["reflection"].relevance == pytest.approx(0.9 * W.summary_weight)
    assert next(c.id for c, _ in _rank([episode, event], method=SearchMethod.VECTOR)) == "event"
    even = _rank(
        [episode, event], method=SearchMethod.VECTOR, weights=ScoringWeights(summary_weight=1.0)
    )
    assert even[0][1].relevance == even[1][1].relevance
