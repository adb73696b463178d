"""The retention curves and levels, pinned to hand-computed values and the notes' examples."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hippograph.models import MemoryCategory, MemoryLevel
from hippograph.retention import (
    Curve,
    LevelThresholds,
    Recall,
    RetentionParams,
    ebbinghaus,
    hyperbolic,
    level_for,
    retention,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("days", "weight", "level"),
    [
        (1, 0.990, MemoryLevel.FULL),
        (30, 0.769, MemoryLevel.FULL),
        (100, 0.500, MemoryLevel.SUMMARY),
        (300, 0.250, MemoryLevel.TAG),
        (1000, 0.091, MemoryLevel.TRACE),
        # the note says 0.003 and archive; its own formula says 1/31: a trace.
        (3000, 0.032, MemoryLevel.TRACE),
    ],
)
def test_hyperbolic_reproduces_note_002(days: int, weight: float, level: MemoryLevel) -> None:
    w = hyperbolic(days, access_count=0, importance=0.5)
    assert w == pytest.approx(weight, abs=5e-4)
    assert level_for(w) is level


def test_hyperbolic_importance_and_recalls_slow_the_decay() -> None:
    # strength = (0.5 + importance) · 1.5^access_count
    assert hyperbolic(100, 0, 1.0) == pytest.approx(1 / (1 + 1 / 1.5))
    assert hyperbolic(100, 0, 0.0) == pytest.approx(1 / (1 + 1 / 0.5))
    assert hyperbolic(100, 2, 0.5) == pytest.approx(1 / (1 + 1 / 2.25))
    assert hyperbolic(0, 0, 0.0) == 1.0  # a new memory starts full whatever its importance
    assert hyperbolic(-5, 0, 0.5) == 1.0  # accessed "in the future" (clock skew): no decay


def test_ebbinghaus_is_note_001s_formula() -> None:
    # 0.9^(Δt_hours / (24 · 1.5^n)) · (0.5 + 0.5·importance)
    assert ebbinghaus(24, 0, 1.0) == pytest.approx(0.9)
    assert ebbinghaus(48, 0, 0.0) == pytest.approx(0.81 * 0.5)
    assert ebbinghaus(36, 1, 0.6) == pytest.approx(0.9 * 0.8)
    assert ebbinghaus(0, 0, 0.2) == pytest.approx(0.6)
    # Note 001 soft-deletes below 0.1: a neutral memory unrecalled for 17 days is there.
    assert ebbinghaus(17 * 24, 0, 0.5) == pytest.approx(0.9**17 * 0.75)
    assert ebbinghaus(17 * 24, 0, 0.5) < 0.15 < ebbinghaus(14 * 24, 0, 0.5)


def test_huge_access_counts_do_not_overflow() -> None:
    assert hyperbolic(10_000, 10**9, 0.5) == pytest.approx(1.0, abs=1e-6)
    assert ebbinghaus(10_000, 10**9, 1.0) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(
    ("weight", "level"),
    [
        (1.0, MemoryLevel.FULL),
        (0.7001, MemoryLevel.FULL),
        (0.7, MemoryLevel.SUMMARY),
        (0.3001, MemoryLevel.SUMMARY),
        (0.3, MemoryLevel.TAG),
        (0.1, MemoryLevel.TRACE),
        (0.0101, MemoryLevel.TRACE),
        (0.01, MemoryLevel.ARCHIVE),
        (0.0, MemoryLevel.ARCHIVE),
    ],
)
def test_level_boundaries(weight: float, level: MemoryLevel) -> None:
    assert level_for(weight) is level


def test_thresholds_must_fall() -> None:
    with pytest.raises(ValueError, match="fall strictly"):
        LevelThresholds(full=0.3, summary=0.7)


def _recall(days: float, category: MemoryCategory, importance: float = 0.5) -> Recall:
    return Recall(NOW - timedelta(days=days), 0, importance, category)


def test_categories_change_the_speed_of_time() -> None:
    params = RetentionParams()
    fact = retention(_recall(100, MemoryCategory.FACT), NOW, Curve.HYPERBOLIC, params)
    episode = retention(_recall(25, MemoryCategory.EPISODE), NOW, Curve.HYPERBOLIC, params)
    assert fact == pytest.approx(0.5)
    assert episode == pytest.approx(0.5)  # four times as fast
    for category in (MemoryCategory.CORE, MemoryCategory.SYSTEM):
        for curve in Curve:
            assert retention(_recall(10_000, category), NOW, curve, params) == 1.0
    # An exempt memory named explicitly decays at the speed it is given.
    core = _recall(100, MemoryCategory.CORE)
    assert retention(core, NOW, Curve.HYPERBOLIC, params, speed=1.0) == pytest.approx(0.5)


def test_retention_counts_from_the_last_access() -> None:
    recall = Recall(NOW - timedelta(hours=48), 1, 1.0, MemoryCategory.FACT)
    assert retention(recall, NOW, Curve.EBBINGHAUS, RetentionParams()) == pytest.approx(
        0.9 ** (48 / 36)
    )
