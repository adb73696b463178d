"""The example operations in docs/examples are valid against the schema served."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphql import parse, validate

from hippograph.settings import LimitSettings
from schema.build import build_schema

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "docs" / "examples").glob("*.graphql"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_is_valid(path: Path) -> None:
    schema = build_schema(LimitSettings())._schema
    errors = validate(schema, parse(path.read_text()))
    assert errors == []


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 5
