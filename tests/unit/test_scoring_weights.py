"""The ranking's knobs: one model that knows each one's range, and the error it gives."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from hippograph.errors import InvalidInput
from hippograph.scoring_weights import ScoringWeights, scoring_weights


def test_the_defaults_are_the_seeds() -> None:
    w = ScoringWeights()
    assert (w.alpha, w.beta, w.gamma, w.decay_rate) == (0.5, 0.2, 0.3, 0.99)
    assert w.entity_weight is None
    assert scoring_weights() == w


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"alpha": 1.5}, "scoring.alpha"),
        ({"gamma": -0.01}, "scoring.gamma"),
        ({"time_weight": math.nan}, "scoring.timeWeight"),
        ({"entity_weight": math.inf}, "scoring.entityWeight"),
        ({"decay_rate": 0.0}, "scoring.decayRate"),
        ({"rrf_k": 0}, "scoring.rrfK"),
    ],
)
def test_a_value_out_of_range_is_an_input_error_naming_the_graphql_field(
    values: dict[str, float], field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        scoring_weights(**values)
    assert refused.value.field == field
    assert refused.value.message.startswith(f"{field}: should be")
    assert "got" in refused.value.message


def test_weights_are_frozen_and_know_only_their_own_names() -> None:
    with pytest.raises(ValidationError):
        ScoringWeights(alhpa=0.4)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        ScoringWeights().alpha = 0.9  # type: ignore[misc]
