"""pydantic refusals of a file's line turned into errors that name the line and the field."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import BaseModel, ConfigDict, Field

from hippograph.errors import InvalidInput
from hippograph.ids import require_user_id
from hippograph.located import field_path, json_object, shared_rule, validate_line


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    n: int = Field(ge=0)


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    user: Annotated[str, shared_rule(require_user_id)]
    items: list[_Item] = []
    counts: dict[str, int] = {}


def _refusal(raw: dict[str, object]) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        validate_line(_Line, raw, "f.jsonl line 4")
    return caught.value


def test_paths_are_spelt_with_dots_and_indexes() -> None:
    assert field_path(("messages", 0, "ts")) == "messages[0].ts"
    assert field_path(("counts", "nodes", "User", "[key]")) == "counts.nodes.User"
    assert field_path(()) == ""


def test_a_refusal_names_the_line_the_field_and_the_reason() -> None:
    refused = _refusal({"user": "ann", "items": [{"n": 1}, {"n": -1}]})
    assert (
        refused.message == "f.jsonl line 4: items[1].n: Input should be greater than or equal to 0"
    )
    assert refused.field == "items[1].n"


def test_a_shared_rule_speaks_without_repeating_the_field() -> None:
    refused = _refusal({"user": "not an id!"})
    assert refused.message.startswith("f.jsonl line 4: user: must be 1-128 characters")


def test_a_few_problems_are_listed_and_the_rest_counted() -> None:
    refused = _refusal({"user": 1, "items": [{"n": "1"}, 5], "counts": {"a": True}, "x": 0})
    assert refused.message == (
        "f.jsonl line 4: user: Input should be a valid string; "
        "items[0].n: Input should be a valid integer; "
        "items[1]: Input should be a JSON object (and 2 more problems on this line)"
    )


def test_a_line_that_is_not_a_json_object_is_refused_where_it_is() -> None:
    with pytest.raises(InvalidInput, match=r"^f\.jsonl line 2: not valid JSON"):
        json_object('{"a": ', "f.jsonl line 2")
    with pytest.raises(InvalidInput, match=r"^f\.jsonl line 2: expected a JSON object, got list"):
        json_object("[1]", "f.jsonl line 2")
    assert json_object('{"a": 1}', "f.jsonl line 2") == {"a": 1}
