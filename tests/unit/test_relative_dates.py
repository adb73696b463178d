"""One relative-date parser for memorize and search: both read a phrase the same way."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from hippograph.querytime import parse_time_window
from hippograph.relative_dates import Unit, find_relative_dates, month_shift

SAID = datetime(2024, 3, 31, 22, tzinfo=UTC)  # a Sunday, the last day of a long month


@pytest.mark.parametrize(
    ("phrase", "unit", "day"),
    [
        ("yesterday", Unit.DAY, date(2024, 3, 30)),
        ("a month ago", Unit.MONTH, date(2024, 2, 1)),  # February, not 30 days back (1 March)
        ("13 months ago", Unit.MONTH, date(2023, 2, 1)),
        ("3个月前", Unit.MONTH, date(2023, 12, 1)),
        ("four years ago", Unit.YEAR, date(2020, 1, 1)),
        ("two weeks ago", Unit.WEEK, date(2024, 3, 17)),
        ("last Sunday", Unit.DAY, date(2024, 3, 24)),
        ("下个月", Unit.MONTH, date(2024, 4, 1)),
    ],
)
def test_a_phrase_names_one_period_for_both_readers(phrase: str, unit: Unit, day: date) -> None:
    [found] = find_relative_dates(phrase, SAID)
    assert (found.unit, found.day) == (unit, day)
    window = parse_time_window(phrase, SAID)
    assert window is not None
    assert window.contains(datetime(day.year, day.month, day.day, 12, tzinfo=UTC))


def test_a_shorter_expression_inside_a_longer_one_is_not_found_again() -> None:
    found = find_relative_dates("the day before yesterday and today", SAID)
    assert [(f.unit, f.day) for f in found] == [
        (Unit.DAY, date(2024, 3, 29)),
        (Unit.DAY, date(2024, 3, 31)),
    ]


def test_month_shift_crosses_years() -> None:
    assert month_shift(date(2024, 1, 31), -1) == date(2023, 12, 1)
    assert month_shift(date(2023, 11, 5), 2) == date(2024, 1, 1)


def test_numbers_past_three_digits_are_not_read() -> None:
    assert find_relative_dates("1000000 days ago", SAID) == []
