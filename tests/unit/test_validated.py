"""A query text the schema accepted once is not validated again; a refused one always is."""

from __future__ import annotations

from typing import Any

import pytest
import strawberry
import strawberry.schema.schema as strawberry_schema
from graphql import validate as graphql_validate

from hippograph.settings import LimitSettings
from schema.build import build_schema
from schema.validated import AcceptedTexts


def test_the_least_recently_seen_text_is_forgotten_first() -> None:
    accepted = AcceptedTexts(size=2)
    accepted.add("a")
    accepted.add("b")
    assert "a" in accepted  # seen again: now the most recent
    accepted.add("c")
    assert "b" not in accepted
    assert "a" in accepted
    assert "c" in accepted


async def _refused_twice(schema: strawberry.Schema, query: str, says: str) -> None:
    """``query`` run twice is refused both times, its first error saying ``says``."""
    for _ in range(2):
        result = await schema.execute(query)
        assert result.errors
        assert says in result.errors[0].message


async def test_a_valid_text_is_walked_once_and_an_invalid_one_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    schema = build_schema(LimitSettings(max_query_depth=2))
    walks: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        walks.append(1)
        return graphql_validate(*args, **kwargs)

    monkeypatch.setattr(strawberry_schema, "validate", counted)
    query = "query { __typename }"
    for _ in range(3):
        result = await schema.execute(query)
        assert result.errors is None
    assert len(walks) == 1
    await _refused_twice(schema, "query { nope }", "nope")
    assert len(walks) == 3
    # The depth limit still refuses, each time (it is a validation rule too).
    deep = "query { users { edges { node { id } } } }"
    await _refused_twice(schema, deep, "exceeds maximum operation depth")
