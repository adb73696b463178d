"""Input checks shared by the services; each failure names the field it is about."""

from __future__ import annotations

import math
from datetime import datetime

from hippograph.errors import InvalidInput


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
    """``value`` if it carries a time zone (naive times are ambiguous)."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(f"{field} must include a time zone offset", field)
    return value
