"""Every field of a GraphQL input reaches the service, or is named as the resolver's.

``to_domain`` copies fields one by one. A field added to an input and to its
domain type, but not to ``to_domain``, would be accepted by the API and then
dropped without a word: the domain default would stand in for what the client
sent. Each case below sets every field of its input to a value that is not the
default, and the test checks that the domain object holds each of them.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest
import strawberry
from strawberry.types.base import get_object_definition

from hippograph import forgetting, models
from hippograph.services.memory_ops import MemoryOpKind
from schema.forgetting import ForgetInput
from schema.inputs import (
    AddMemoryInput,
    MemorizeInput,
    MemoryFilterInput,
    MemoryOpInput,
    MessageInput,
    UpdateMemoryInput,
)

_AT = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
_MESSAGE = MessageInput(
    speaker="Ana", content="hi", role=models.Role.ASSISTANT, ts=_AT, client_id="m-1"
)

# The fields a resolver reads itself, and why they are not the domain's.
_RESOLVERS_OWN = {
    ForgetInput: {"dry_run", "run_async"},  # how to run it, passed beside the request
    UpdateMemoryInput: {"id"},  # which memory, passed beside the changes
}


def _hard_delete(
    strategy: forgetting.HardDeleteStrategy, memory_id: str, **limits: Any
) -> ForgetInput:
    """A hard-delete ``forget`` of one memory by ``strategy``, with its own limits."""
    return ForgetInput(
        user_id=strawberry.ID("u-1"),
        policy=forgetting.ForgetPolicy.HARD_DELETE,
        strategy=strategy,
        memory_ids=[strawberry.ID(memory_id)],
        **limits,
    )


_CASES: list[Any] = [
    _MESSAGE,
    AddMemoryInput(
        user_id=strawberry.ID("u-1"),
        content="Ana likes tea",
        kind=models.MemoryKind.EPISODIC,
        importance=0.9,
        category=models.MemoryCategory.CORE,
        domain="food",
        session_id=strawberry.ID("s-1"),
        derived_from=[strawberry.ID("m-1"), strawberry.ID("m-2")],
        source=models.MemorySource.AGENT,
        verified=True,
        valid_from=_AT,
        valid_to=_AT,
        client_id="c-1",
    ),
    UpdateMemoryInput(
        id=strawberry.ID("mem-1"),
        content="Ana likes green tea",
        importance=0.2,
        category=models.MemoryCategory.FACT,
        domain="drinks",
        verified=False,
    ),
    MemoryFilterInput(
        kinds=[models.MemoryKind.SEMANTIC],
        levels=[models.MemoryLevel.SUMMARY],
        categories=[models.MemoryCategory.EPISODE],
        session_id=strawberry.ID("s-1"),
        min_importance=0.3,
        created_after=_AT,
        created_before=_AT,
        domain="food",
        include_consolidated=True,
        include_superseded=True,
        include_deleted=True,
    ),
    MemorizeInput(
        user_ids=[strawberry.ID("u-1"), strawberry.ID("u-2")],
        session_id=strawberry.ID("s-1"),
        messages=[_MESSAGE],
        history=[_MESSAGE, _MESSAGE],
        group_id="g-1",
        source_type="email",
        run_async=False,
        flush=False,
    ),
    MemoryOpInput(
        op=MemoryOpKind.ADD,
        id=strawberry.ID("mem-1"),
        content="Ana moved to Lisbon",
        kind=models.MemoryKind.EPISODIC,
        importance=0.7,
        hard=True,
        client_id="c-2",
    ),
    # Each limit belongs to its strategy: one case a strategy, together every field.
    _hard_delete(
        forgetting.HardDeleteStrategy.CAPACITY_BASED,
        "mem-1",
        max_capacity=10,
        dry_run=True,
        run_async=True,
    ),
    _hard_delete(forgetting.HardDeleteStrategy.IMPORTANCE_BASED, "mem-2", threshold=0.4),
    _hard_delete(forgetting.HardDeleteStrategy.TIME_BASED, "mem-3", max_age_days=30.0),
]
_TYPES = list(dict.fromkeys(type(case) for case in _CASES))


def _plain(value: Any) -> Any:
    """A value as the domain holds it: ids as strings, lists as tuples, inputs mapped."""
    if hasattr(value, "to_domain"):
        return value.to_domain()
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    return value


def _input_fields(case: Any) -> dict[str, Any]:
    definition = get_object_definition(type(case), strict=True)
    return {f.python_name: getattr(case, f.python_name) for f in definition.fields}


@pytest.mark.parametrize("kind", _TYPES, ids=lambda t: t.__name__)
def test_every_field_of_the_input_is_set_by_a_case(kind: type) -> None:
    cases = [case for case in _CASES if type(case) is kind]
    for field in get_object_definition(kind, strict=True).fields:
        if field.default_factory is not dataclasses.MISSING:
            default = field.default_factory()
        elif field.default is not dataclasses.MISSING:
            default = field.default
        else:
            continue  # required: the case had to set it
        values = [getattr(case, field.python_name) for case in cases]
        assert any(v != default for v in values), f"{kind.__name__}.{field.python_name} is unset"


@pytest.mark.parametrize("case", _CASES, ids=lambda c: type(c).__name__)
def test_every_field_of_the_input_reaches_the_domain(case: Any) -> None:
    domain = case.to_domain()
    own = _RESOLVERS_OWN.get(type(case), set())
    domain_fields = {f.name for f in dataclasses.fields(domain)}
    for name, value in _input_fields(case).items():
        if name in own:
            assert name not in domain_fields, f"{name} is the resolver's but the domain has it"
            continue
        assert name in domain_fields, f"{type(case).__name__}.{name} has no domain field"
        assert getattr(domain, name) == _plain(value), f"{type(case).__name__}.{name}"
