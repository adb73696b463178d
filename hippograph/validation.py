"""Input checks shared by the services; each failure names the field it is about."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sized
from datetime import UTC, datetime

from hippograph.errors import InvalidInput
from hippograph.models import MemoryFilter

# Lone UTF-16 surrogates: JSON can spell them ("\\ud800") and Python keeps
# them in a str, but they are not text. The tokenizer, the graph driver and
# any UTF-8 encoder refuse them, so they must stop at the edge.
_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_in(value: str) -> str | None:
    """The first lone surrogate in ``value`` as ``U+XXXX``, or None if it is all text."""
    match = _SURROGATE.search(value)
    return f"U+{ord(match.group()):04X}" if match else None


def require_line(value: str, field: str, max_length: int) -> str:
    """``require_text`` for a name shown on one line (a key's, in ``keys list``): no
    control characters, which could break the line or forge another."""
    text = require_text(value, field, max_length)
    control = next((c for c in text if unicodedata.category(c) == "Cc"), None)
    if control is not None:
        raise InvalidInput(
            f"{field} must be one line of text (it contains U+{ord(control):04X})", field
        )
    return text


def require_text(value: str, field: str, max_length: int, *, allow_empty: bool = False) -> str:
    """``value`` stripped, if it is non-empty (unless allowed) and at most ``max_length``."""
    if len(value) > max_length:
        raise InvalidInput(
            f"{field} is {len(value)} characters long; the limit is {max_length}", field
        )
    stripped = value.strip()
    if not stripped and not allow_empty:
        raise InvalidInput(f"{field} must not be empty", field)
    if "\x00" in value:
        raise InvalidInput(f"{field} must not contain NUL characters", field)
    if (surrogate := surrogate_in(value)) is not None:
        raise InvalidInput(
            f"{field} contains a lone UTF-16 surrogate ({surrogate}), which is not text", field
        )
    return stripped


def require_fraction(value: float, field: str) -> float:
    """``value`` if it is a finite number in [0, 1]."""
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise InvalidInput(f"{field} must be between 0 and 1 (got {value})", field)
    return value


def require_count(value: int, field: str, low: int, high: int) -> int:
    """``value`` if ``low <= value <= high``."""
    if not low <= value <= high:
        raise InvalidInput(f"{field} must be between {low} and {high} (got {value})", field)
    return value


def require_aware(value: datetime, field: str) -> datetime:
    """``value`` if it carries a time zone (naive times are ambiguous) and exists in UTC.

    ``9999-12-31T23:59:59-14:00`` parses, but is past the last moment a
    datetime can hold once moved to UTC, where every time is stored.
    """
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(f"{field} must include a time zone offset", field)
    try:
        value.astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise InvalidInput(
            f"{field} is out of range: {value.isoformat()} is not a time between "
            "years 1 and 9999 in UTC",
            field,
        ) from exc
    return value


def require_period(
    start: datetime | None, end: datetime | None, start_field: str, end_field: str
) -> None:
    """Both times valid (see :func:`require_aware`) and ``end`` not before ``start``."""
    for value, field in ((start, start_field), (end, end_field)):
        if value is not None:
            require_aware(value, field)
    if start is not None and end is not None and end < start:
        raise InvalidInput(f"{end_field} must not be earlier than {start_field}", end_field)


def require_listed(values: Sized | None, field: str, what: str = "value") -> None:
    """``InvalidInput`` for a list given empty: it would select nothing, or read as
    "all" where a missing list does; left out (None) is fine."""
    if values is not None and not len(values):
        raise InvalidInput(f"{field} must name at least one {what}; leave it out for all", field)


def require_filter(memory_filter: MemoryFilter, field: str) -> MemoryFilter:
    """``memory_filter`` if its importance is a fraction, its time range is valid and
    no list of it is empty (an empty list would select nothing, or read as "all")."""
    for name, values in (
        ("kinds", memory_filter.kinds),
        ("levels", memory_filter.levels),
        ("categories", memory_filter.categories),
    ):
        require_listed(values, f"{field}.{name}")
    if memory_filter.min_importance is not None:
        require_fraction(memory_filter.min_importance, f"{field}.minImportance")
    require_period(
        memory_filter.created_after,
        memory_filter.created_before,
        f"{field}.createdAfter",
        f"{field}.createdBefore",
    )
    return memory_filter
