"""Relative times made absolute: "yesterday" said on 8 May 2023 becomes "yesterday (7 May 2023)".

A memory outlives the conversation it came from; "last week" means nothing a
month later. The expression is kept and the date it meant is added after it,
so the text still reads as said and a search for the date finds it. Finding
the expressions and their dates is ``hippograph.relative_dates``'s, the
parser search uses too.
"""

from __future__ import annotations

from datetime import date, datetime

from hippograph.relative_dates import RelativeDate, Unit, find_relative_dates


def day(moment: date) -> str:
    """A date as people write it: ``7 May 2023``."""
    return f"{moment.day} {moment:%B %Y}"


def month(moment: date) -> str:
    """A month: ``May 2023``."""
    return f"{moment:%B %Y}"


def _said(found: RelativeDate) -> str:
    """What the expression meant, as written after it."""
    if found.unit is Unit.WEEK:
        return "the week of " + day(found.day)
    if found.unit is Unit.WEEKEND:
        return "the weekend before " + day(found.day)
    if found.unit is Unit.MONTH:
        return month(found.day)
    if found.unit is Unit.YEAR:
        return str(found.day.year)
    return day(found.day)


def resolve_relative_times(text: str, reference: datetime) -> str:
    """``text`` with the absolute date after each relative time it contains."""
    for found in sorted(find_relative_dates(text, reference), key=lambda d: d.end, reverse=True):
        text = f"{text[: found.end]} ({_said(found)}){text[found.end :]}"
    return text
