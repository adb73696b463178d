"""Typed rows: a dataclass's fields as a Cypher list's items, and a row read back by them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from graph.candidate_rows import MEMORY_ROW, candidate
from graph.rows import RowCodec


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    weight: float
    at: datetime
    seq: int | None


CODEC = RowCodec(Row, "x")


def test_the_items_are_the_fields_in_order_with_datetimes_as_text() -> None:
    assert CODEC.items == "x.id, x.weight, toString(x.at), x.seq"
    assert CODEC.width == 4


def test_a_row_is_read_by_its_fields_and_what_follows_is_left_to_the_caller() -> None:
    row = ["r1", 1, "2024-05-08T13:56:00+02:00[Europe/Lisbon]", None, 0.93]
    assert CODEC.read(row) == Row("r1", 1.0, datetime(2024, 5, 8, 11, 56, tzinfo=UTC), None)


def test_a_short_row_is_an_error_not_a_record_with_holes() -> None:
    with pytest.raises(ValueError, match="shorter"):
        CODEC.read(["r1", 1.0])


def test_a_memory_candidate_reads_its_period_only_when_both_ends_are_there() -> None:
    at = "2024-05-08T10:00:00"
    row = ["mem_1", 0.7, at, at, "ses_1", 4, at, None, "event", 0.5]
    found = candidate(row, unit=False, similarity=0.5)
    assert (found.id, found.seq, found.kind, found.about, found.similarity) == (
        "mem_1",
        4,
        "event",
        None,
        0.5,
    )
    both = MEMORY_ROW.read([*row[:7], at, "event"]).candidate()
    assert both.about == (datetime(2024, 5, 8, 10, tzinfo=UTC),) * 2
