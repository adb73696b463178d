"""Relative dates ("yesterday", "two months ago", "上个月") resolved against the moment said.

The one parser behind both readers of relative time: memorize writes the date
after the expression (``hippograph/extraction/relative_time.py``) and search
favours memories from the period a query names (``hippograph/querytime.py``).
Months and years are calendar ones: "two months ago" said on 8 May 2023 is
March 2023, whatever its number of days.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum


class Unit(StrEnum):
    """How long the period a relative date names is."""

    DAY = "day"
    WEEK = "week"  # the week around ``day``
    WEEKEND = "weekend"  # the weekend before ``day``
    MONTH = "month"
    YEAR = "year"


@dataclass(frozen=True, slots=True)
class RelativeDate:
    """One relative expression found in a text, and the period it names."""

    start: int  # where the expression is in the text
    end: int
    unit: Unit
    day: date  # the day; for a month its first day, for a year 1 January
    # "three days ago" is loosely meant; "yesterday" is not.
    approximate: bool = False


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# At most three digits: "999 years ago" is still a representable date.
_N = r"(\d{1,3}|a|an|one|two|three|four|five|six)"
_CN_UNITS = {"天": Unit.DAY, "周": Unit.WEEK, "个月": Unit.MONTH, "年": Unit.YEAR}

_Period = tuple[Unit, date, bool]


def _count(word: str) -> int:
    return _NUMBERS.get(word.lower()) or int(word)


def month_shift(day: date, months: int) -> date:
    """The first day of the month ``months`` after ``day``'s (before, when negative)."""
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _ago(unit: Unit, count: int, today: date) -> _Period:
    if unit is Unit.DAY:
        return unit, today - timedelta(days=count), True
    if unit is Unit.WEEK:
        return unit, today - timedelta(weeks=count), True
    if unit is Unit.MONTH:
        return unit, month_shift(today, -count), False
    return unit, date(today.year - count, 1, 1), False


def _rules(today: date) -> list[tuple[str, Callable[[re.Match[str]], _Period]]]:
    """(pattern, the period a match names) pairs, most specific first."""

    def days(n: int) -> Callable[[re.Match[str]], _Period]:
        return lambda m: (Unit.DAY, today + timedelta(days=n), False)

    def week(n: int) -> Callable[[re.Match[str]], _Period]:
        return lambda m: (Unit.WEEK, today + timedelta(weeks=n), False)

    def month(n: int) -> Callable[[re.Match[str]], _Period]:
        return lambda m: (Unit.MONTH, month_shift(today, n), False)

    def year(n: int) -> Callable[[re.Match[str]], _Period]:
        return lambda m: (Unit.YEAR, date(today.year + n, 1, 1), False)

    def last_weekday(m: re.Match[str]) -> _Period:
        back = (today.weekday() - _WEEKDAYS.index(m[1].lower())) % 7 or 7
        return Unit.DAY, today - timedelta(days=back), False

    def ago(m: re.Match[str]) -> _Period:
        return _ago(Unit(m[2].lower()), _count(m[1]), today)

    return [
        (r"\bthe day before yesterday\b|前天", days(-2)),
        (r"\byesterday\b|\blast night\b|昨天|昨晚", days(-1)),
        (r"\bthe day after tomorrow\b|后天", days(2)),
        (r"\btomorrow\b|明天", days(1)),
        (r"\b(?:today|tonight|this morning|this afternoon|this evening)\b|今天|今晚", days(0)),
        (rf"\b{_N} (day|week|month|year)s? ago\b", ago),
        (r"(\d{1,3})(天|周|个月|年)前", lambda m: _ago(_CN_UNITS[m[2]], int(m[1]), today)),
        (r"\blast (" + "|".join(_WEEKDAYS) + r")\b", last_weekday),
        (r"\blast weekend\b", lambda m: (Unit.WEEKEND, today, False)),
        (r"\blast week\b|上周|上个星期", week(-1)),
        (r"\bnext week\b|下周|下个星期", week(1)),
        (r"\blast month\b|上个月", month(-1)),
        (r"\bnext month\b|下个月", month(1)),
        (r"\blast year\b|去年", year(-1)),
        (r"\bnext year\b|明年", year(1)),
        (r"\bthis year\b|今年", year(0)),
    ]


def find_relative_dates(text: str, said: datetime) -> list[RelativeDate]:
    """The relative dates in ``text`` said at ``said``, most specific rule first.

    An expression inside a longer one already found ("yesterday" in "the day
    before yesterday") is not found again.
    """
    today = said.date()
    found: list[RelativeDate] = []
    for pattern, period in _rules(today):
        for match in re.finditer(pattern, text, flags=re.IGNORECASE):
            if any(d.start < match.end() and match.start() < d.end for d in found):
                continue
            try:
                unit, day, approximate = period(match)
            except (ValueError, OverflowError):
                continue  # "tomorrow" said on 31 December 9999: past the calendar's end
            found.append(RelativeDate(match.start(), match.end(), unit, day, approximate))
    return found
