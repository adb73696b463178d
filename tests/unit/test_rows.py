"""Typed rows: a named tuple's fields as a Cypher list's items, and a row read back by them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

import pytest

from graph.candidate_rows import MEMORY_ROW, UNIT_ROW, candidate
from graph.rows import AsText, RowCodec


class Row(NamedTuple):
    id: str
    weight: float
    at: AsText
    until: AsText | None
    seq: int | None


CODEC = RowCodec(Row, "x")


def test_the_items_are_the_fields_in_order_with_text_columns_sent_as_text() -> None:
    assert CODEC.items == "x.id, x.weight, toString(x.at), toString(x.until), x.seq"
    assert CODEC.width == 5


def test_a_row_is_its_leading_items_and_what_follows_is_left_to_the_caller() -> None:
    row = ["r1", 1, "2024-05-08T13:56:00+02:00", None, 3, 0.93]
    found = CODEC.read(row)
    assert found == Row("r1", 1, "2024-05-08T13:56:00+02:00", None, 3)
    assert (found.id, found.seq) == ("r1", 3)


def test_a_short_row_is_an_error_not_a_record_with_holes() -> None:
    with pytest.raises(TypeError):
        CODEC.read(["r1", 1.0])


def test_the_candidate_rows_send_their_times_as_text() -> None:
    assert MEMORY_ROW.items.startswith("m.id, m.importance, toString(m.created_at), ")
    assert "toString(m.about_end), m.kind" in MEMORY_ROW.items
    assert UNIT_ROW.items == "n.id, toString(n.ts), n.session_id"


def test_a_memory_candidate_reads_its_period_only_when_both_ends_are_there() -> None:
    at = "2024-05-08T10:00:00"
    row = ["mem_1", 1, at, at, "ses_1", 4, at, None, "event", 0.5]
    found = candidate(row, unit=False, similarity=0.5)
    assert (found.id, found.importance, found.seq, found.kind) == ("mem_1", 1.0, 4, "event")
    assert (found.about, found.similarity) == (None, 0.5)
    assert found.created_at == datetime(2024, 5, 8, 10, tzinfo=UTC)
    both = MEMORY_ROW.read([*row[:7], at, "event"]).candidate()
    assert both.about == (datetime(2024, 5, 8, 10, tzinfo=UTC),) * 2
