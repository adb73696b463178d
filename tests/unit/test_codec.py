"""Records are stored and read off their own fields: a new field needs no mapping code."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, datetime

import pytest

from graph.codec import RecordCodec
from hippograph import models
from schema.mapping import from_domain
from schema.memory import MEMORY_TYPES, memory_type
from schema.types import MemUnit, Message, Session, User

AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Probe:
    id: str
    at: datetime
    weight: float
    level: models.MemoryLevel = models.MemoryLevel.FULL
    tags: tuple[str, ...] = ()
    note: str | None = None
    history: tuple[models.LevelChange, ...] = ()


def test_a_record_round_trips_through_its_properties() -> None:
    codec = RecordCodec(Probe)
    change = models.LevelChange(AT, models.MemoryLevel.FULL, models.MemoryLevel.SUMMARY)
    probe = Probe("p1", AT, 0.5, models.MemoryLevel.TAG, ("a", "b"), "n", ())
    props = codec.props(probe)
    assert props == {
        "id": "p1",
        "at": AT,
        "weight": 0.5,
        "level": "tag",
        "tags": ["a", "b"],
        "note": "n",
        "history": [],
    }
    assert codec.read(props) == probe
    assert codec.read({**props, "history": [change.encode()]}).history == (change,)
    assert codec.projection == "{.id, .at, .weight, .level, .tags, .note, .history}"


def test_missing_values_take_the_field_default_and_naive_times_are_utc() -> None:
    codec = RecordCodec(Probe)
    read = codec.read({"id": "p1", "at": datetime(2026, 11, 25, 12, 0), "weight": 1})
    assert read == Probe("p1", AT, 1.0)


def test_a_missing_required_value_is_named() -> None:
    with pytest.raises(KeyError, match=r"Probe\.at"):
        RecordCodec(Probe).read({"id": "p1", "weight": 1.0})


def test_fields_written_elsewhere_are_read_but_not_written() -> None:
    codec = RecordCodec(Probe, written_elsewhere=("history",))
    assert "history" not in codec.props(Probe("p1", AT, 0.5))
    assert ".history" in codec.projection


def test_graphql_types_copy_every_domain_field_they_show() -> None:
    memory = models.Memory(
        id="mem_1",
        user_id="u1",
        kind=models.MemoryKind.PROFILE,
        content="lives in Lyon",
        importance=0.7,
        created_at=AT,
        last_accessed_at=AT,
        topic="city",
        level_history=(models.LevelChange(AT, models.MemoryLevel.FULL, models.MemoryLevel.TAG),),
    )
    shown = memory_type(memory)
    assert type(shown).__name__ == "ProfileMemory"
    assert (shown.content, shown.topic, shown.importance) == ("lives in Lyon", "city", 0.7)
    assert shown.level_history[0].to_level is models.MemoryLevel.TAG
    user = from_domain(User, models.User("u1", "Ann", AT))
    assert (user.id, user.name, user.created_at) == ("u1", "Ann", AT)


@pytest.mark.parametrize(
    ("shown", "record"),
    [
        *((t, models.Memory) for t in MEMORY_TYPES),
        (User, models.User),
        (Session, models.Session),
        (Message, models.Message),
        (MemUnit, models.MemUnit),
    ],
)
def test_each_graphql_data_field_has_a_domain_field(shown: type, record: type) -> None:
    domain = {f.name for f in fields(record)}
    definition = shown.__strawberry_definition__  # type: ignore[attr-defined]
    data = {f.python_name for f in definition.fields if f.base_resolver is None}
    assert data <= domain
