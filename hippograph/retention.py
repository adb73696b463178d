"""Retention: how much of a memory is left, and which of the five levels that is.

Two curves from the source notes (docs/design.md), both counted from the memory's last access:

* ``ebbinghaus`` (note 001): ``base^(Δt_hours / (24 · s^access_count)) ·
  (0.5 + 0.5·importance)``. Recalls stretch the time constant; importance
  scales the whole curve. Note 001 soft-deletes below 0.1.
* ``hyperbolic`` (note 002): ``1 / (1 + α · days / strength)`` with
  ``strength = (0.5 + importance) · s^access_count``. The note gives only
  ``1 / (1 + α·days)``; we let importance and recalls slow the decay (a
  memory twice as strong takes twice as many days to fade as far) rather
  than scale it, so a new memory always starts at 1.0 (full) as the note's
  example does. A memory of neutral importance (0.5) never recalled is
  exactly the note's curve: day 30 → 0.77, 100 → 0.50, 300 → 0.25,
  1000 → 0.09. The note's last example (day 3000 → 0.003, archive) does not
  follow its own formula, which gives 0.032 (trace): the formula governs.

Categories (note 004) change the speed of time: ``system`` and ``core`` never
decay (speed 0), ``episode`` decays faster than ``fact``. Pure code: ``now``
comes in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from hippograph.models import MemoryCategory, MemoryLevel

# s^access_count overflows a float near 1.5^1750; far sooner it stops mattering.
_MAX_ACCESS_EXPONENT = 64


class Curve(StrEnum):
    """A retention curve (note 001's or note 002's)."""

    EBBINGHAUS = "ebbinghaus"
    HYPERBOLIC = "hyperbolic"


@dataclass(frozen=True, slots=True)
class LevelThresholds:
    """Note 002's five levels: above ``full`` is full, above ``summary`` summary, and so on."""

    full: float = 0.7
    summary: float = 0.3
    tag: float = 0.1
    trace: float = 0.01

    def __post_init__(self) -> None:
        if not 1.0 >= self.full > self.summary > self.tag > self.trace > 0.0:
            raise ValueError(
                "level thresholds must fall strictly: 1 ≥ full > summary > tag > trace > 0"
            )


def default_speeds() -> dict[MemoryCategory, float]:
    """Note 004's categories: system and core never decay, episodes about 4× faster than facts.

    Note 004 decays episodes by ×0.8 and facts by ×0.95 a day; ln 0.8 / ln 0.95 ≈ 4.35.
    """
    return {
        MemoryCategory.SYSTEM: 0.0,
        MemoryCategory.CORE: 0.0,
        MemoryCategory.FACT: 1.0,
        MemoryCategory.EPISODE: 4.0,
    }


@dataclass(frozen=True, slots=True)
class RetentionParams:
    """The parameters of both curves and of the categories."""

    ebbinghaus_base: float = 0.9
    ebbinghaus_strength: float = 1.5
    hyperbolic_alpha: float = 0.01
    hyperbolic_strength: float = 1.5
    speeds: Mapping[MemoryCategory, float] = field(default_factory=default_speeds)


@dataclass(frozen=True, slots=True)
class Recall:
    """What retention depends on, of one memory."""

    last_accessed_at: datetime
    access_count: int
    importance: float
    category: MemoryCategory


def _clamp01(value: float) -> float:
    return min(1.0, max(0.0, value))


def _strength(s: float, access_count: int) -> float:
    return float(s ** min(max(access_count, 0), _MAX_ACCESS_EXPONENT))


def ebbinghaus(
    hours: float, access_count: int, importance: float, base: float = 0.9, s: float = 1.5
) -> float:
    """Note 001's retention after ``hours`` without a recall."""
    exponent = max(hours, 0.0) / (24.0 * _strength(s, access_count))
    return float(base**exponent) * (0.5 + 0.5 * _clamp01(importance))


def hyperbolic(
    days: float, access_count: int, importance: float, alpha: float = 0.01, s: float = 1.5
) -> float:
    """Note 002's weight after ``days`` without a recall, slowed by importance and recalls."""
    strength = (0.5 + _clamp01(importance)) * _strength(s, access_count)
    return 1.0 / (1.0 + alpha * max(days, 0.0) / strength)


def retention(
    recall: Recall,
    now: datetime,
    curve: Curve,
    params: RetentionParams,
    speed: float | None = None,
) -> float:
    """The memory's weight in [0, 1] on ``curve`` at ``now``.

    ``speed`` overrides the category's (an exempt memory named explicitly
    decays as a fact does). Speed 0 means the memory does not decay at all.
    """
    pace = params.speeds.get(recall.category, 1.0) if speed is None else speed
    if pace <= 0:
        return 1.0
    elapsed = (now - recall.last_accessed_at).total_seconds() * pace
    if curve is Curve.EBBINGHAUS:
        return ebbinghaus(
            elapsed / 3600.0,
            recall.access_count,
            recall.importance,
            params.ebbinghaus_base,
            params.ebbinghaus_strength,
        )
    return hyperbolic(
        elapsed / 86400.0,
        recall.access_count,
        recall.importance,
        params.hyperbolic_alpha,
        params.hyperbolic_strength,
    )


def level_for(weight: float, thresholds: LevelThresholds | None = None) -> MemoryLevel:
    """Note 002's level of a weight.

    Above 0.7 full, above 0.3 summary, above 0.1 tag, above 0.01 trace, else archive.
    """
    t = thresholds or LevelThresholds()
    if weight > t.full:
        return MemoryLevel.FULL
    if weight > t.summary:
        return MemoryLevel.SUMMARY
    if weight > t.tag:
        return MemoryLevel.TAG
    if weight > t.trace:
        return MemoryLevel.TRACE
    return MemoryLevel.ARCHIVE


LEVEL_ORDER: dict[MemoryLevel, int] = {level: rank for rank, level in enumerate(MemoryLevel)}
