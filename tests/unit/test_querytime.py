"""Periods named in queries, English and Chinese, absolute and relative."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hippograph.querytime import parse_time_window

NOW = datetime(2024, 3, 15, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "inside", "outside"),
    [
        (
            "What painting did Melanie show on October 13, 2023?",
            datetime(2023, 10, 13, 15, tzinfo=UTC),
            datetime(2023, 11, 1, tzinfo=UTC),
        ),
        (
            "What did Gina find on 1 February, 2023?",
            datetime(2023, 2, 2, tzinfo=UTC),
            datetime(2023, 3, 1, tzinfo=UTC),
        ),
        (
            "What setback did Melanie face in October 2023?",
            datetime(2023, 10, 30, tzinfo=UTC),
            datetime(2023, 9, 30, tzinfo=UTC),
        ),
        (
            "When did Melanie go camping in June?",
            datetime(2021, 6, 10, tzinfo=UTC),
            datetime(2021, 7, 1, tzinfo=UTC),
        ),
        (
            "How many times has she gone to the beach in 2023?",
            datetime(2023, 7, 6, tzinfo=UTC),
            datetime(2024, 1, 1, tzinfo=UTC),
        ),
        (
            "我2023年5月3日说了什么",
            datetime(2023, 5, 3, 8, tzinfo=UTC),
            datetime(2023, 6, 3, tzinfo=UTC),
        ),
        ("2023年5月的计划", datetime(2023, 5, 20, tzinfo=UTC), datetime(2023, 6, 1, tzinfo=UTC)),
        ("去年我喜欢什么", datetime(2023, 8, 1, tzinfo=UTC), datetime(2024, 1, 2, tzinfo=UTC)),
        (
            "what did I say yesterday",
            datetime(2024, 3, 14, 20, tzinfo=UTC),
            datetime(2024, 3, 15, 9, tzinfo=UTC),
        ),
        ("three days ago", datetime(2024, 3, 12, tzinfo=UTC), datetime(2024, 3, 1, tzinfo=UTC)),
        ("last month", datetime(2024, 2, 29, tzinfo=UTC), datetime(2024, 3, 1, tzinfo=UTC)),
        # Calendar months and years, as memorize writes them: January 2024, 2022.
        ("two months ago", datetime(2024, 1, 31, tzinfo=UTC), datetime(2024, 2, 1, tzinfo=UTC)),
        ("3个月前", datetime(2023, 12, 1, tzinfo=UTC), datetime(2024, 1, 1, tzinfo=UTC)),
        ("two years ago", datetime(2022, 12, 31, tzinfo=UTC), datetime(2023, 1, 1, tzinfo=UTC)),
        ("5天前", datetime(2024, 3, 11, tzinfo=UTC), datetime(2024, 3, 13, tzinfo=UTC)),
        ("last week", datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 3, 15, tzinfo=UTC)),
        ("last friday", datetime(2024, 3, 8, 18, tzinfo=UTC), datetime(2024, 3, 9, tzinfo=UTC)),
    ],
)
def test_named_periods(query: str, inside: datetime, outside: datetime) -> None:
    window = parse_time_window(query, NOW)
    assert window is not None
    assert window.contains(inside)
    assert not window.contains(outside)


@pytest.mark.parametrize(
    "query",
    [
        "When did Caroline go to the support group?",
        "I may go hiking",
        "What is 2023 minus 5?",
        "我喜欢喝咖啡",
    ],
)
def test_no_period_named(query: str) -> None:
    assert parse_time_window(query, NOW) is None


def test_impossible_dates_are_ignored() -> None:
    assert parse_time_window("on February 30, 2023", NOW) is None
