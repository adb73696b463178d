"""The ranking's knobs (``ScoringWeights``): one pydantic model that says each one's range.

A search request carries them (GraphQL's ``ScoringInput``, the benches'
configurations); the model refuses a value out of its range where it is
made, so no caller checks them by name. ``scoring_weights`` makes one from
a request's values and turns a refusal into the API's ``InvalidInput``,
naming the GraphQL field (``scoring.decayRate``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from hippograph.errors import InvalidInput

Fraction = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
"""A weight: a finite number from 0 to 1."""


class ScoringWeights(BaseModel):
    """Every knob of the ranking, with the design's defaults (docs/retrieval.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    alpha: Fraction = 0.5  # relevance (note 001)
    beta: Fraction = 0.2  # recency (note 001)
    gamma: Fraction = 0.3  # importance (note 001)
    # Recency per hour since last access (note 001): a factor, never 0.
    decay_rate: Annotated[float, Field(gt=0.0, le=1.0, allow_inf_nan=False)] = 0.99
    vector_weight: Fraction = 0.6  # HYBRID: share of the semantic score
    rrf_k: Annotated[int, Field(ge=1, le=1000)] = 60
    # With the turns around the best hits joining the candidates; chosen on
    # both dev files and both granularities (docs/retrieval.md, docs/decisions/)
    context_weight: Fraction = 0.35
    time_weight: Fraction = 0.1
    # None: the server's default (HIPPOGRAPH_SEARCH__ENTITY_WEIGHT), set by the search service.
    entity_weight: Fraction | None = None
    # What a summary's relevance counts for (episodes, reflections): at equal
    # relevance the statements it covers rank first (docs/retrieval.md).
    summary_weight: Fraction = 0.5


def scoring_weights(**values: Any) -> ScoringWeights:
    """``ScoringWeights`` of ``values``; the first value out of range as ``InvalidInput``."""
    try:
        return ScoringWeights(**values)
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else "scoring"
        field = f"scoring.{to_camel(name)}"  # the GraphQL input's own name
        message = str(error["msg"]).removeprefix("Input ").removeprefix("input ")
        raise InvalidInput(f"{field}: {message} (got {error['input']!r})", field) from None
