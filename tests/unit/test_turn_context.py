"""How much of the turn before goes into an event's vector is a setting, honoured by assemble."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hippograph.extraction.assemble import UnitContext, assemble
from hippograph.extraction.schema import Extraction, Fact
from hippograph.models import MemoryKind, Message, Role
from hippograph.settings import MemorizeSettings
from hippograph.turns import CONTEXT_WEIGHT, blend
from hippograph.vector_math import unit

AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
BEFORE = [1.0, 0.0, 0.0]
OWN = [0.0, 1.0, 0.0]


def _message(seq: int, content: str) -> Message:
    return Message(f"msg_{seq}", "ses_1", "u1", "Ann", Role.USER, content, AT, seq)


def _event_vector(weight: float) -> list[float]:
    messages = [_message(1, "Are you coming?"), _message(2, "Yes, last Friday I booked it")]
    extraction = Extraction(
        summary="plans",
        narrative="Ann booked it.",
        subject="plans",
        facts=[
            Fact(
                user_id="u1",
                kind="event",
                content="Ann booked it",
                importance=0.5,
                message_indices=[1],
            )
        ],
    )
    context = UnitContext(
        messages=messages,
        vectors=[BEFORE, OWN],
        before=None,
        user_names={"u1": "Ann"},
        group_id=None,
        source_type="conversation",
        learned_at=AT,
        context_weight=weight,
    )
    draft = assemble(extraction, context)
    (event,) = [d for d in draft.memories if d.memory.kind is MemoryKind.EVENT]
    assert event.vector is not None
    return list(event.vector)


def test_by_default_a_turn_s_vector_is_its_own() -> None:
    assert MemorizeSettings().turn_context_weight == CONTEXT_WEIGHT == 0.0
    assert _event_vector(CONTEXT_WEIGHT) == pytest.approx(OWN)


def test_a_weight_blends_the_turn_before_in() -> None:
    assert _event_vector(0.5) == pytest.approx(blend(OWN, unit([0.5, 0.5, 0.0]), 0.5))


def test_weight_zero_keeps_the_turn_alone() -> None:
    assert _event_vector(0.0) == pytest.approx(OWN)


def test_the_weight_is_a_fraction() -> None:
    with pytest.raises(ValueError, match="turn_context_weight"):
        MemorizeSettings(turn_context_weight=1.5)
