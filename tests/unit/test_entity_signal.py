"""The entity signal's weights and scores, computed by hand."""

from __future__ import annotations

import math

import pytest

from hippograph.entity_signal import Seed, entity_scores, outermost, seed_weight
from hippograph.scoring import Candidate
from tests.support import candidate


def _m(mid: str) -> Candidate:
    return candidate(mid)


def test_a_seed_weighs_the_log_of_how_rare_it_is() -> None:
    assert seed_weight(1, 100) == pytest.approx(math.log(101))
    assert seed_weight(50, 100) == pytest.approx(math.log(3))
    # never below ln 2, even when the count is stale and smaller than the degree
    assert seed_weight(10, 5) == pytest.approx(math.log(2))


def test_a_memory_scores_the_share_of_the_seed_weight_it_mentions() -> None:
    rare = Seed("ent_rare", 1, [_m("a")])
    common = Seed("ent_common", 9, [_m(x) for x in "abcdefghi"])
    scores = entity_scores([rare, common], 99)
    w_rare, w_common = math.log(100), math.log(12)
    total = w_rare + w_common
    assert next(iter(scores)) == "a"  # mentions both
    assert scores["a"].entity_score == pytest.approx(1.0)
    assert scores["b"].entity_score == pytest.approx(w_common / total)
    assert set(scores) == set("abcdefghi")


def test_no_seed_no_scores() -> None:
    assert entity_scores([], 100) == {}


def test_a_name_inside_a_longer_matched_name_does_not_count_twice() -> None:
    long = Seed("ent_1", 2, [_m("a"), _m("b")], "pottery workshop")
    short = Seed("ent_2", 5, [_m("a"), _m("c")], "pottery")
    other = Seed("ent_3", 5, [_m("c")], "potter")
    assert outermost([long, short, other]) == [long, other]
    scores = entity_scores([long, short, other], 10)
    w_long, w_other = math.log(6), math.log(3)
    assert scores["a"].entity_score == pytest.approx(w_long / (w_long + w_other))
    assert scores["c"].entity_score == pytest.approx(w_other / (w_long + w_other))
