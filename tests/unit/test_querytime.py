"""Periods named in queries, English and Chinese, absolute and relative."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from hippograph.models import MemoryKind
from hippograph.querytime import TimeWindow, asks_when, dated, parse_time_window, period_named
from tests.support import memory as a_memory


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    """A moment in UTC."""
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


NOW = utc(2024, 3, 15, 10, 0)


@pytest.mark.parametrize(
    ("query", "inside", "outside"),
    [
        (
            "What painting did Melanie show on October 13, 2023?",
            utc(2023, 10, 13, 15),
            utc(2023, 11, 1),
        ),
        ("What did Gina find on 1 February, 2023?", utc(2023, 2, 2), utc(2023, 3, 1)),
        ("What setback did Melanie face in October 2023?", utc(2023, 10, 30), utc(2023, 9, 30)),
        ("When did Melanie go camping in June?", utc(2021, 6, 10), utc(2021, 7, 1)),
        ("How many times has she gone to the beach in 2023?", utc(2023, 7, 6), utc(2024, 1, 1)),
        ("我2023年5月3日说了什么", utc(2023, 5, 3, 8), utc(2023, 6, 3)),
        ("2023年5月的计划", utc(2023, 5, 20), utc(2023, 6, 1)),
        # A day without a year is this year's; a month alone is that month of any year.
        ("3月5号我做了什么", utc(2024, 3, 5, 9), utc(2024, 3, 20)),
        ("我5月份去了哪里", utc(2021, 5, 9), utc(2021, 6, 1)),
        ("去年我喜欢什么", utc(2023, 8, 1), utc(2024, 1, 2)),
        ("what did I say yesterday", utc(2024, 3, 14, 20), utc(2024, 3, 15, 9)),
        ("three days ago", utc(2024, 3, 12), utc(2024, 3, 1)),
        ("last month", utc(2024, 2, 29), utc(2024, 3, 1)),
        # Calendar months and years, as memorize writes them: January 2024, 2022.
        ("two months ago", utc(2024, 1, 31), utc(2024, 2, 1)),
        ("3个月前", utc(2023, 12, 1), utc(2024, 1, 1)),
        ("two years ago", utc(2022, 12, 31), utc(2023, 1, 1)),
        ("5天前", utc(2024, 3, 11), utc(2024, 3, 13)),
        ("last week", utc(2024, 3, 1), utc(2024, 3, 15)),
        ("last friday", utc(2024, 3, 8, 18), utc(2024, 3, 9)),
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


@pytest.mark.parametrize("query", ["on February 30, 2023", "2月30日", "13月份", "2023年13月"])
def test_impossible_dates_are_ignored(query: str) -> None:
    assert parse_time_window(query, NOW) is None


@pytest.mark.parametrize(
    ("query", "inside"),
    [
        ("2025-02-29 or March 3, 2025", utc(2025, 3, 3, 12)),
        ("February 30, 2023 or 2023-03-02", utc(2023, 3, 2, 12)),
        ("2月30日还是3月2日", utc(2024, 3, 2, 12)),
    ],
)
def test_an_impossible_date_leaves_the_next_one_read(query: str, inside: datetime) -> None:
    window = parse_time_window(query, NOW)
    assert window is not None
    assert window.contains(inside)


@pytest.mark.parametrize("query", ["what happened at 2023-05-08T14:00?", "2023-05-08T14:00:00Z"])
def test_an_iso_day_with_its_time_names_the_day(query: str) -> None:
    window = parse_time_window(query, NOW)
    assert window is not None
    assert window.contains(utc(2023, 5, 8, 12))


SAID = utc(2023, 5, 8, 14, 0)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        # "yesterday" said on 8 May 2023 is the 7th
        ("I went to the support group yesterday", utc(2023, 5, 7), utc(2023, 5, 8)),
        # a month without a year is the last such month up to when it was said
        ("We moved in August", utc(2022, 8, 1), utc(2022, 9, 1)),
        ("in March we sold it", utc(2023, 3, 1), utc(2023, 4, 1)),
        ("since 2019", utc(2019, 1, 1), utc(2020, 1, 1)),
        # Chinese dates, as the query side reads them
        ("我2022年5月搬到了上海", utc(2022, 5, 1), utc(2022, 6, 1)),
        ("2021年10月3日我们结婚了", utc(2021, 10, 3), utc(2021, 10, 4)),
        ("12月25日我去了哈尔滨", utc(2022, 12, 25), utc(2022, 12, 26)),
        ("我2019年开始学琴", utc(2019, 1, 1), utc(2020, 1, 1)),
        # Periods on either side of the saying. Said on Monday 8 May: the
        # calendar week after, which holds no moment of the saying (a query's
        # fortnight around it would, and be dropped).
        ("I'm moving to Boston next week", utc(2023, 5, 15), utc(2023, 5, 22)),
        # "last May" said in May is a year back, not the May it was said in;
        # an earlier month is this year's
        ("We met last May", utc(2022, 5, 1), utc(2022, 6, 1)),
        ("last March we sold it", utc(2023, 3, 1), utc(2023, 4, 1)),
        # Relative dates, read exactly: the day memorize writes after it
        # ("three days ago (5 May 2023)"), no slack
        ("I visited Oslo three days ago", utc(2023, 5, 5), utc(2023, 5, 6)),
        ("我3天前到了", utc(2023, 5, 5), utc(2023, 5, 6)),
        # the calendar week before the one said in (Monday to Sunday), not a fortnight
        ("I moved last week", utc(2023, 5, 1), utc(2023, 5, 8)),
        ("two weeks ago we met", utc(2023, 4, 24), utc(2023, 5, 1)),
        # the Saturday and Sunday before the Monday said
        ("we went camping last weekend", utc(2023, 5, 6), utc(2023, 5, 8)),
    ],
)
def test_a_stored_text_names_a_period_resolved_from_when_it_was_said(
    text: str, start: datetime, end: datetime
) -> None:
    assert period_named(text, SAID) == (start, end)


def test_a_stored_text_s_week_and_weekend_do_not_depend_on_the_weekday_said() -> None:
    sunday = utc(2023, 5, 14, 9)
    assert period_named("I moved last week", sunday) == (utc(2023, 5, 1), utc(2023, 5, 8))
    # on a Sunday "last weekend" is the one before, not the one under way
    assert period_named("we went camping last weekend", sunday) == (
        utc(2023, 5, 6),
        utc(2023, 5, 8),
    )


def test_a_stored_text_is_read_on_the_speaker_s_clock() -> None:
    # 20:00 on 8 May for a speaker at -07:00 is 03:00 UTC on the 9th: the text
    # was dated on the speaker's clock, so its period is too, and its own
    # date (8 May) is still its own.
    evening = datetime(2023, 5, 8, 20, tzinfo=timezone(timedelta(hours=-7)))
    stamped = "On 8 May 2023, Ann said: “I went to a support group yesterday (7 May 2023).”"
    may_7 = (utc(2023, 5, 7), utc(2023, 5, 8))
    assert period_named(stamped, evening) == may_7
    assert period_named("I went to a support group yesterday", evening) == may_7
    assert period_named("On 8 May 2023, Ann said: “I'm painting today”", evening) is None


def test_a_text_naming_no_time_has_no_period() -> None:
    assert period_named("I love painting sunsets", SAID) is None


def test_a_memory_is_dated_from_its_content() -> None:
    memory = a_memory(
        "u", "Caroline said yesterday was her first pottery class", at=SAID, kind=MemoryKind.EVENT
    )
    assert dated(memory).about_start == utc(2023, 5, 7)
    assert dated(memory, said=utc(2024, 1, 2)).about_start == utc(2024, 1, 1)
    assert dated(replace(memory, content="no time here")).about_start is None


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("When did Caroline go to the LGBTQ support group?", True),
        ("what year did they move?", True),
        ("How long ago was the trip?", True),
        ("他什么时候去的北京？", True),
        ("And when was the party?", True),
        ("What did Mel paint?", False),
        ("Where does Kate work?", False),
        ("whenever I cook", False),
        ("What does Ann drink when she is tired?", False),  # a conjunction, not a question of time
    ],
)
def test_questions_asking_for_a_time(query: str, asks: bool) -> None:
    assert asks_when(query) is asks


def test_a_month_window_overlaps_a_period_in_that_month_of_any_year() -> None:
    july = TimeWindow(month=7)
    assert july.overlaps(utc(2021, 7, 3), utc(2021, 7, 4))
    assert not july.overlaps(utc(2021, 6, 3), utc(2021, 6, 4))
    # a day window ending at midnight of 1 July is still June
    assert not july.overlaps(utc(2021, 6, 30), utc(2021, 7, 1))
    # a whole year has every month; a season has its own, across the new year
    assert july.overlaps(utc(2021, 1, 1), utc(2022, 1, 1))
    winter = (utc(2021, 12, 1), utc(2022, 3, 1))
    assert TimeWindow(month=1).overlaps(*winter)
    assert not july.overlaps(*winter)


def test_a_chinese_month_and_day_is_the_latest_one_up_to_now() -> None:
    window = parse_time_window("12月25日我去了哪里", NOW)  # asked in March 2024
    assert window is not None
    assert window.contains(utc(2023, 12, 25, 12))
    earlier = parse_time_window("3月1日我去了哪里", NOW)
    assert earlier is not None
    assert earlier.contains(utc(2024, 3, 1, 12))


def test_a_text_s_own_date_is_not_the_period_it_tells_of() -> None:
    stamped = "On 8 May 2023, Caroline said: “I went to a support group yesterday (7 May 2023)”"
    assert period_named(stamped, SAID) == (utc(2023, 5, 7), utc(2023, 5, 8))
    assert period_named("On 8 May 2023, Melanie said: “Hey Caroline!”", SAID) is None
    assert period_named("I'm painting today", SAID) is None


EDGES = (utc(9999, 12, 31, 23, 59), utc(1, 1, 1))


@pytest.mark.parametrize("said", EDGES, ids=["year 9999", "year 1"])
@pytest.mark.parametrize(
    "text",
    [
        "9999年",
        "0000年",
        "9999年12月31日",
        "9999-12-31",
        "0001-01-01",
        "December 31, 9999",
        "in December 9999",
        "in 9999",
        "tomorrow",
        "yesterday",
        "next week",
        "next year",
        "last month",
        "in May",
        "明天",
        "去年",
    ],
)
def test_dates_at_the_calendars_ends_name_no_period_rather_than_crash(
    text: str, said: datetime
) -> None:
    # Their period (or a query's slack around it) runs past year 9999 or
    # before year 1; what can be held is still found, the rest is none.
    for window in (parse_time_window(text, said), period_named(text, said)):
        if isinstance(window, TimeWindow):
            assert window.start is None or window.end is None or window.start < window.end
        elif window is not None:
            start, end = window
            assert start < end
