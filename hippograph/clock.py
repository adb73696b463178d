"""Time enters the domain through a clock, so tests can fix it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)
