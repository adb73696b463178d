"""Datetimes written by either server's ``toString`` read back as aware UTC."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.records import parse_utc

MOMENT = datetime(2026, 6, 24, 18, 53, 56, 725877, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "2026-06-24T18:53:56.725877",  # ArcadeDB: no zone, the value is UTC
        "2026-06-24T18:53:56.725877Z",  # Neo4j, UTC offset
        "2026-06-24T20:53:56.725877+02:00",  # Neo4j, another offset
        "2026-06-24T20:53:56.725877+02:00[Europe/Berlin]",  # Neo4j, named zone
        "2026-06-24T18:53:56.725877999Z",  # nanoseconds: past the microsecond dropped
    ],
)
def test_server_datetime_text_reads_as_utc(text: str) -> None:
    parsed = parse_utc(text)
    assert parsed == MOMENT
    assert parsed.tzinfo == UTC


def test_whole_seconds_read_back() -> None:
    assert parse_utc("2024-05-01T12:00:00Z") == datetime(2024, 5, 1, 12, tzinfo=UTC)


def test_text_that_is_not_a_datetime_is_refused() -> None:
    with pytest.raises(ValueError, match="isoformat"):
        parse_utc("yesterday")
