"""Relative times made absolute: "yesterday" said on 8 May 2023 becomes "yesterday (7 May 2023)".

A memory outlives the conversation it came from; "last week" means nothing a
month later. The expression is kept and the date it meant is added after it,
so the text still reads as said and a search for the date finds it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def day(moment: datetime) -> str:
    """A date as people write it: ``7 May 2023``."""
    return f"{moment.day} {moment:%B %Y}"


def month(moment: datetime) -> str:
    """A month: ``May 2023``."""
    return f"{moment:%B %Y}"


def _month_shift(moment: datetime, months: int) -> datetime:
    index = moment.year * 12 + moment.month - 1 + months
    return moment.replace(year=index // 12, month=index % 12 + 1, day=1)


def _count(word: str) -> int:
    return _NUMBERS.get(word.lower()) or int(word)


def _rules(ref: datetime) -> list[tuple[str, Callable[[re.Match[str]], str]]]:
    """(pattern, what the match meant) pairs, most specific first."""
    return [
        (r"\bthe day before yesterday\b", lambda m: day(ref - timedelta(days=2))),
        (r"\byesterday\b", lambda m: day(ref - timedelta(days=1))),
        (r"\blast night\b", lambda m: day(ref - timedelta(days=1))),
        (r"\bthe day after tomorrow\b", lambda m: day(ref + timedelta(days=2))),
        (r"\btomorrow\b", lambda m: day(ref + timedelta(days=1))),
        (r"\b(?:today|tonight|this morning|this afternoon|this evening)\b", lambda m: day(ref)),
        (
            r"\b(\d+|a|an|one|two|three|four|five|six) days? ago\b",
            lambda m: day(ref - timedelta(days=_count(m[1]))),
        ),
        (
            r"\b(\d+|a|an|one|two|three|four|five|six) weeks? ago\b",
            lambda m: "the week of " + day(ref - timedelta(weeks=_count(m[1]))),
        ),
        (
            r"\b(\d+|a|an|one|two|three|four|five|six) months? ago\b",
            lambda m: month(_month_shift(ref, -_count(m[1]))),
        ),
        (
            r"\b(\d+|a|an|one|two|three|four|five|six) years? ago\b",
            lambda m: str(ref.year - _count(m[1])),
        ),
        (
            r"\blast (" + "|".join(_WEEKDAYS) + r")\b",
            lambda m: day(
                ref - timedelta(days=(ref.weekday() - _WEEKDAYS.index(m[1].lower())) % 7 or 7)
            ),
        ),
        (r"\blast weekend\b", lambda m: "the weekend before " + day(ref)),
        (r"\blast week\b", lambda m: "the week of " + day(ref - timedelta(weeks=1))),
        (r"\bnext week\b", lambda m: "the week of " + day(ref + timedelta(weeks=1))),
        (r"\blast month\b", lambda m: month(_month_shift(ref, -1))),
        (r"\bnext month\b", lambda m: month(_month_shift(ref, 1))),
        (r"\blast year\b", lambda m: str(ref.year - 1)),
        (r"\bnext year\b", lambda m: str(ref.year + 1)),
        (r"\bthis year\b", lambda m: str(ref.year)),
        (r"前天", lambda m: day(ref - timedelta(days=2))),
        (r"昨天|昨晚", lambda m: day(ref - timedelta(days=1))),
        (r"今天|今晚", lambda m: day(ref)),
        (r"后天", lambda m: day(ref + timedelta(days=2))),
        (r"明天", lambda m: day(ref + timedelta(days=1))),
        (r"上周|上个星期", lambda m: "the week of " + day(ref - timedelta(weeks=1))),
        (r"下周|下个星期", lambda m: "the week of " + day(ref + timedelta(weeks=1))),
        (r"上个月", lambda m: month(_month_shift(ref, -1))),
        (r"下个月", lambda m: month(_month_shift(ref, 1))),
        (r"去年", lambda m: str(ref.year - 1)),
        (r"明年", lambda m: str(ref.year + 1)),
    ]


def resolve_relative_times(text: str, reference: datetime) -> str:
    """``text`` with the absolute date after each relative time it contains."""
    spans: list[tuple[int, int, str]] = []
    for pattern, meaning in _rules(reference):
        for match in re.finditer(pattern, text, flags=re.IGNORECASE):
            if any(start < match.end() and match.start() < end for start, end, _ in spans):
                continue  # inside a longer expression already resolved
            spans.append((match.start(), match.end(), meaning(match)))
    for _, end, said in sorted(spans, reverse=True):
        text = f"{text[:end]} ({said}){text[end:]}"
    return text
