"""The period a query names, if any: "on 13 October 2023", "in July", "去年", "last week".

Search uses it to favour memories from that period (time-aware scoring). Only
explicit mentions count; a question that merely asks "when" names no period.
Relative expressions are found and resolved against ``now`` by
``hippograph.relative_dates``, the parser memorize uses too (calendar months
and years). Windows are half-open
``[start, end)`` in UTC; a month named without a year matches that month in
any year.

The same reading dates what a stored text tells of (``period_named``,
``dated``): exactly, without the slack a query gets ("three days ago" is the
one day memorize writes after it, "last week" the calendar week, Monday to
Sunday), on the speaker's clock, and without the text's own date. A question
that asks "when" (``asks_when``) is told apart too: it favours memories that
name a time.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import ParamSpec

from hippograph.models import Memory
from hippograph.relative_dates import RelativeDate, Unit, find_relative_dates

_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_MONTH = r"(" + "|".join(_MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DAY_SLACK = timedelta(days=3)


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """A period a query names."""

    start: datetime | None = None
    end: datetime | None = None
    month: int | None = None  # a month with no year: that month of any year
    label: str = ""

    def contains(self, moment: datetime) -> bool:
        """Whether ``moment`` falls in the period."""
        if self.month is not None:
            return moment.month == self.month
        if self.start is None or self.end is None:
            return False
        return self.start <= moment < self.end

    def overlaps(self, start: datetime, end: datetime) -> bool:
        """Whether the period ``[start, end)`` shares any time with this one."""
        if self.month is not None:
            return self.month in _months_of(start, end)
        if self.start is None or self.end is None:
            return False
        return start < self.end and self.start < end


def _months_of(start: datetime, end: datetime) -> set[int]:
    """The months of the year that ``[start, end)`` touches (all twelve for a year)."""
    last = end - timedelta(microseconds=1) if end > start else start
    span = (last.year - start.year) * 12 + last.month - start.month
    if span >= 11:
        return set(range(1, 13))
    return {(start.month - 1 + i) % 12 + 1 for i in range(span + 1)}


def _month_number(name: str) -> int:
    name = name.lower().rstrip(".")
    return (
        _MONTHS.index(name) + 1
        if name in _MONTHS
        else _MONTH_ABBR[name[:4] if name == "sept" else name[:3]]
    )


_P = ParamSpec("_P")


def _in_calendar(make: Callable[_P, TimeWindow | None]) -> Callable[_P, TimeWindow | None]:
    """``make``, answering None for a period a datetime cannot hold.

    "9999年", "December 31, 9999" or "0001-01-01" are dates, but their period
    (or its slack) runs past year 9999 or before year 1: no period, not a
    crash of the search or the memorize that read it.
    """

    @functools.wraps(make)
    def held(*args: _P.args, **kwargs: _P.kwargs) -> TimeWindow | None:
        try:
            return make(*args, **kwargs)
        except (ValueError, OverflowError):
            return None

    return held


@_in_calendar
def _exact_day_window(day: date, days: int = 1) -> TimeWindow:
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return TimeWindow(start, start + timedelta(days=days))


@_in_calendar
def _day_window(day: date, label: str) -> TimeWindow:
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    # A few days either side: people say "on Monday" of something told on Tuesday.
    return TimeWindow(start - _DAY_SLACK, start + timedelta(days=1) + _DAY_SLACK, label=label)


@_in_calendar
def _month_window(year: int, month: int, label: str) -> TimeWindow:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return TimeWindow(start, end, label=label)


@_in_calendar
def _year_window(year: int, label: str) -> TimeWindow:
    return TimeWindow(
        datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC), label=label
    )


# English dates, one reading for queries and for stored texts: a day (year,
# month, day from the match), a month of a year, a month alone ("in May": a
# bare "may" is far too often the verb), a year.
_DAYS: tuple[tuple[str, Callable[[re.Match[str]], tuple[int, int, int]]], ...] = (
    # an ISO day may run on into its time ("2023-05-08T14:00", lower-cased)
    (r"\b(\d{4})-(\d{1,2})-(\d{1,2})(?=t\d|\b)", lambda m: (int(m[1]), int(m[2]), int(m[3]))),
    (
        rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b",
        lambda m: (int(m[3]), _month_number(m[1]), int(m[2])),
    ),
    (
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b",
        lambda m: (int(m[3]), _month_number(m[2]), int(m[1])),
    ),
)
_MONTH_OF_YEAR = rf"\b{_MONTH},?\s+(\d{{4}})\b"
_MONTH_ALONE = rf"\b(?:in|during|since|of|last)\s+{_MONTH}\b(?!\s+\d)"
_YEAR_ALONE = r"\b(?:in|during|of|since)\s+((?:19|20)\d{2})\b"


def _safe_day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


# "When" asks for a time at the head of a question or before its verb
# ("When did…", "and when was…"), not as a conjunction ("what does she drink
# when she is tired").
_WHEN = r"^\W*when\b|\bwhen\s+(?:did|do|does|was|were|is|are|will|would|has|have|had|can|could)\b"
_ASKS_WHEN = re.compile(
    _WHEN + r"|\b(what (?:day|date|time|year|month|week)|which (?:day|date|year|month|week)"
    r"|how long ago|since when)\b|什么时候|哪天|哪一天|哪年|几月|何时",
    re.IGNORECASE,
)


def asks_when(query: str) -> bool:
    """Whether ``query`` asks for a time ("When did…", "what year…", "什么时候").

    Its answer names a time, so memories whose text names one are likelier.
    """
    return _ASKS_WHEN.search(query) is not None


def period_named(text: str, said: datetime) -> tuple[datetime, datetime] | None:
    """The period a stored text tells of, resolved from when it was said, as ``[start, end)``.

    "Yesterday" said on 8 May 2023 is 7 May; a month without a year is the
    last such month up to when it was said ("last May" said in May: a year
    back). The first period named wins, but one that holds the moment it was
    said does not count: it is the text's own date ("On 8 May 2023, Caroline
    said…", "today"), which its creation time already gives.

    ``said`` is read on its own clock: at 20:00 on 8 May, -07:00 (03:00 UTC
    on the 9th), "yesterday" is 7 May, as memorize wrote it after the words.
    """
    # Periods are calendar ones at UTC midnights, as the text's dates are: the
    # moment said goes on the same footing, its wall clock, not its instant.
    wall = said.replace(tzinfo=UTC)
    periods = sorted(_periods_in(text.lower(), wall), key=lambda p: p[0])
    for _, start, end in periods:
        if not start <= wall < end:
            return start, end
    return None


# Chinese dates, one reading for queries and for stored texts: a day of a
# year, a month of a year, a day without a year, a year.
_ZH_DAY = r"(\d{4})年(\d{1,2})月(\d{1,2})[日号]"
_ZH_MONTH_OF_YEAR = r"(\d{4})年(\d{1,2})月"
_ZH_MONTH_DAY = r"(\d{1,2})月(\d{1,2})[日号]"
_ZH_YEAR = r"(\d{4})年"


def _zh_day(m: re.Match[str]) -> date | None:
    return _safe_day(int(m[1]), int(m[2]), int(m[3]))


def _zh_month(m: re.Match[str]) -> TimeWindow | None:
    month = int(m[2])
    return _month_window(int(m[1]), month, m[0]) if 1 <= month <= 12 else None


def _zh_month_day(m: re.Match[str], now: datetime) -> date | None:
    """The latest such day up to ``now``: asked in March, 12月25日 is last December's."""
    day = _safe_day(now.year, int(m[1]), int(m[2]))
    if day is not None and day > now.date():
        day = _safe_day(now.year - 1, int(m[1]), int(m[2]))
    return day


def _periods_in(text: str, said: datetime) -> list[tuple[int, datetime, datetime]]:
    """Every period ``text`` names, exactly (no slack), with where it starts in the text."""
    found: list[tuple[int, datetime, datetime]] = []
    taken: list[tuple[int, int]] = []

    def add(span: tuple[int, int], window: TimeWindow | None) -> None:
        if window is None or window.start is None or window.end is None:
            return
        if any(span[0] < end and start < span[1] for start, end in taken):
            return  # "May 2023" inside "7 May 2023"
        taken.append(span)
        found.append((span[0], window.start, window.end))

    for pattern, parts in _DAYS:
        for m in re.finditer(pattern, text):
            day = _safe_day(*parts(m))
            if day is not None:
                add(m.span(), _exact_day_window(day))
    for m in re.finditer(_MONTH_OF_YEAR, text):
        add(m.span(), _month_window(int(m[2]), _month_number(m[1]), m[0]))
    for m in re.finditer(_MONTH_ALONE, text):
        month = _month_number(m[1])
        # "in May" said in May is this May; "last May" is a year back
        this_year = month < said.month or (month == said.month and not m[0].startswith("last"))
        year = said.year if this_year else said.year - 1
        add(m.span(), _month_window(year, month, m[0]))
    for m in re.finditer(_YEAR_ALONE, text):
        add(m.span(), _year_window(int(m[1]), m[0]))
    _chinese_periods(text, said, add)
    for relative in find_relative_dates(text, said):
        add((relative.start, relative.end), _exact_period_window(relative))
    return found


def _chinese_periods(
    text: str, said: datetime, add: Callable[[tuple[int, int], TimeWindow | None], None]
) -> None:
    """The Chinese dates of ``text`` (年, 月, 日), as the query side reads them: longest
    first, so a month inside a day is not a period of its own; a month or a day
    without a year is the latest one up to when it was said."""
    for m in re.finditer(_ZH_DAY, text):
        day = _zh_day(m)
        add(m.span(), _exact_day_window(day) if day else None)
    for m in re.finditer(_ZH_MONTH_OF_YEAR, text):
        add(m.span(), _zh_month(m))
    for m in re.finditer(_ZH_MONTH_DAY, text):
        day = _zh_month_day(m, said)
        add(m.span(), _exact_day_window(day) if day else None)
    for m in re.finditer(_ZH_YEAR, text):
        add(m.span(), _year_window(int(m[1]), m[0]))


def dated(memory: Memory, said: datetime | None = None) -> Memory:
    """``memory`` with the period its content names (``about_start``/``about_end``).

    ``said``: when the content was said (default: the memory's creation time).
    """
    period = period_named(memory.content, said or memory.created_at)
    start, end = period if period else (None, None)
    return replace(memory, about_start=start, about_end=end)


def parse_time_window(query: str, now: datetime) -> TimeWindow | None:
    """The period ``query`` names, or None; the first, most specific mention wins."""
    text = query.lower()
    for finder in (_absolute_english, _absolute_chinese, _relative):
        window = finder(text, now)
        if window is not None:
            return window
    return None


def _absolute_english(text: str, now: datetime) -> TimeWindow | None:
    # The first real day written, whichever way: a date that is none
    # ("2025-02-29") is passed over, not the end of the reading.
    days = [
        (m.start(), day, m[0])
        for pattern, parts in _DAYS
        for m in re.finditer(pattern, text)
        if (day := _safe_day(*parts(m))) is not None
    ]
    if days:
        _, day, label = min(days, key=lambda found: found[0])
        return _day_window(day, label)
    if m := re.search(_MONTH_OF_YEAR, text):
        return _month_window(int(m[2]), _month_number(m[1]), m[0])
    if m := re.search(_MONTH_ALONE, text):
        return TimeWindow(month=_month_number(m[1]), label=m[0])
    if m := re.search(_YEAR_ALONE, text):
        return _year_window(int(m[1]), m[0])
    return None


def _absolute_chinese(text: str, now: datetime) -> TimeWindow | None:
    # An impossible day (2月30日) is passed over for the next, and blanked:
    # it is no month either.
    for found in re.finditer(_ZH_DAY, text):
        if day := _zh_day(found):
            return _day_window(day, found[0])
        text = _blanked(text, found)
    if m := re.search(_ZH_MONTH_OF_YEAR, text):
        return _zh_month(m)
    for found in re.finditer(_ZH_MONTH_DAY, text):
        if day := _zh_month_day(found, now):
            return _day_window(day, found[0])
        text = _blanked(text, found)
    if m := re.search(_ZH_YEAR, text):
        return _year_window(int(m[1]), m[0])
    if m := re.search(r"(\d{1,2})月份?", text):
        month = int(m[1])
        return TimeWindow(month=month, label=m[0]) if 1 <= month <= 12 else None
    return None


def _blanked(text: str, match: re.Match[str]) -> str:
    """``text`` with ``match``'s span made spaces (the other positions stay)."""
    return text[: match.start()] + " " * (match.end() - match.start()) + text[match.end() :]


def _relative(text: str, now: datetime) -> TimeWindow | None:
    found = find_relative_dates(text, now)
    if not found:
        return None
    first = found[0]  # the most specific rule's
    return _period_window(first, text[first.start : first.end])


@_in_calendar
def _exact_period_window(found: RelativeDate) -> TimeWindow | None:
    """The period a relative date in a stored text names: the one memorize writes
    after it ("three days ago (5 May 2023)"), without a query's slack, which
    for "next week" would hold the moment said and be dropped as its own date."""
    d = found.day
    if found.unit is Unit.WEEK:  # "the week of …": Monday to Sunday
        monday = d - timedelta(days=d.weekday())
        return _exact_day_window(monday, days=7)
    if found.unit is Unit.WEEKEND:  # the Saturday and Sunday before the day said
        sunday = d - timedelta(days=(d.weekday() - 6) % 7 or 7)
        return _exact_day_window(sunday - timedelta(days=1), days=2)
    if found.unit is Unit.DAY:
        return _exact_day_window(d)
    return _period_window(found, "")  # a calendar month or year: exact already


@_in_calendar
def _period_window(found: RelativeDate, label: str) -> TimeWindow | None:
    """The window of a relative date a query names: its calendar period, loosely for
    loose ones."""
    d = found.day
    start = datetime(d.year, d.month, d.day, tzinfo=UTC)
    if found.unit is Unit.MONTH:
        return _month_window(d.year, d.month, label)
    if found.unit is Unit.YEAR:
        return _year_window(d.year, label)
    if found.unit is Unit.WEEKEND:
        return TimeWindow(start - timedelta(days=7), start, label=label)
    # "three days ago" may be two or four; "last week" said on any weekday
    # covers the whole previous week, so the fortnight before today.
    slack = {
        (Unit.DAY, False): (timedelta(0), timedelta(days=1)),
        (Unit.DAY, True): (timedelta(days=1), timedelta(days=2)),
        (Unit.WEEK, False): (timedelta(days=7), timedelta(days=7)),
        (Unit.WEEK, True): (timedelta(days=3), timedelta(days=4)),
    }[(found.unit, found.approximate)]
    return TimeWindow(start - slack[0], start + slack[1], label=label)
