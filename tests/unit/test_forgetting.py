"""The forgetting policy: what each policy does to each kind of memory, and why."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from hippograph.errors import InvalidInput
from hippograph.forget_report import ForgetReport, count, left_alone, moves, tally
from hippograph.forgetting import (
    Action,
    Candidate,
    Decision,
    ForgetPolicy,
    ForgetRequest,
    ForgetRules,
    HardDeleteStrategy,
    decide,
    is_exempt,
)
from hippograph.models import MemoryCategory, MemoryKind, MemoryLevel

NOW = datetime(2026, 6, 1, tzinfo=UTC)
RULES = ForgetRules()


def memory(
    days: float,
    *,
    importance: float = 0.5,
    category: MemoryCategory = MemoryCategory.FACT,
    kind: MemoryKind = MemoryKind.SEMANTIC,
    level: MemoryLevel = MemoryLevel.FULL,
    memory_id: str = "mem_1",
    created_days: float | None = None,
    deleted: bool = False,
) -> Candidate:
    return Candidate(
        id=memory_id,
        kind=kind,
        category=category,
        level=level,
        importance=importance,
        created_at=NOW - timedelta(days=days if created_days is None else created_days),
        last_accessed_at=NOW - timedelta(days=days),
        access_count=0,
        deleted=deleted,
    )


FUZZ = ForgetRequest("ann")


def test_fuzz_moves_down_and_back_up() -> None:
    down = decide(memory(300), FUZZ, RULES, NOW)
    assert down is not None
    assert (down.action, down.from_level, down.to_level) == (
        Action.FUZZ,
        MemoryLevel.FULL,
        MemoryLevel.TAG,
    )
    assert down.weight == pytest.approx(0.25)
    up = decide(memory(1, level=MemoryLevel.TRACE), FUZZ, RULES, NOW)
    assert up is not None
    assert (up.action, up.to_level) == (Action.RESTORE, MemoryLevel.FULL)
    assert decide(memory(300, level=MemoryLevel.TAG), FUZZ, RULES, NOW) is None


def test_fuzz_never_deletes() -> None:
    for days in (1, 100, 10_000, 700_000):
        d = decide(memory(days, importance=0.0), FUZZ, RULES, NOW)
        assert d is None or d.action in (Action.FUZZ, Action.RESTORE)


def test_reflections_and_core_are_exempt_unless_named() -> None:
    reflection = memory(5000, kind=MemoryKind.REFLECTION, category=MemoryCategory.FACT)
    core = memory(5000, category=MemoryCategory.CORE)
    for m in (reflection, core):
        assert is_exempt(m, ())
        assert decide(m, FUZZ, RULES, NOW) is None
        hard = ForgetRequest(
            "ann", ForgetPolicy.HARD_DELETE, HardDeleteStrategy.TIME_BASED, max_age_days=1
        )
        assert decide(m, hard, RULES, NOW) is None
        named = ForgetRequest("ann", memory_ids=(m.id,))
        d = decide(m, named, RULES, NOW)
        assert d is not None
        assert d.to_level is MemoryLevel.TRACE


def test_exempt_memory_left_fuzzed_comes_back_full() -> None:
    d = decide(memory(5000, category=MemoryCategory.CORE, level=MemoryLevel.TAG), FUZZ, RULES, NOW)
    assert d is not None
    assert (d.action, d.to_level, d.weight) == (Action.RESTORE, MemoryLevel.FULL, 1.0)


def test_important_facts_are_promoted_to_core_and_restored() -> None:
    d = decide(memory(5000, importance=0.96, level=MemoryLevel.TRACE), FUZZ, RULES, NOW)
    assert d is not None
    assert (d.action, d.promote, d.to_level) == (Action.PROMOTE, True, MemoryLevel.FULL)
    soft = ForgetRequest("ann", ForgetPolicy.SOFT_DELETE)
    d = decide(memory(5000, importance=0.96), soft, RULES, NOW)
    assert d is not None
    assert d.action is Action.PROMOTE  # promoted, not deleted
    episode = memory(5000, importance=0.99, category=MemoryCategory.EPISODE)
    d = decide(episode, FUZZ, RULES, NOW)
    assert d is not None
    assert not d.promote  # only facts become core


def test_soft_delete_rules() -> None:
    soft = ForgetRequest("ann", ForgetPolicy.SOFT_DELETE)
    faded = decide(memory(30, importance=0.5), soft, RULES, NOW)
    assert faded is not None
    assert faded.action is Action.SOFT_DELETE
    assert faded.reason.startswith("retention")
    assert decide(memory(1, importance=0.5), soft, RULES, NOW) is None
    # Recalled often (so its retention is high), but not in the last 15 days.
    episode = replace(memory(15, category=MemoryCategory.EPISODE, importance=0.9), access_count=20)
    expired = decide(episode, soft, RULES, NOW)
    assert expired is not None
    assert expired.reason == "episode not recalled for 14 days"
    # An episode of 2023 learned (or recalled) today is not old: age counts
    # from the last access, never from the event's date.
    imported = memory(0, category=MemoryCategory.EPISODE, created_days=900, importance=0.9)
    assert decide(imported, soft, RULES, NOW) is None
    weak = decide(memory(0, importance=0.2), soft, RULES, NOW)
    assert weak is not None
    assert weak.reason.startswith("fact importance 0.20")
    assert decide(memory(0, importance=0.2, deleted=True), soft, RULES, NOW) is None


def test_hard_delete_strategies() -> None:
    by_importance = ForgetRequest(
        "ann", ForgetPolicy.HARD_DELETE, HardDeleteStrategy.IMPORTANCE_BASED, threshold=0.4
    )
    assert decide(memory(0, importance=0.39), by_importance, RULES, NOW) is not None
    assert decide(memory(0, importance=0.4), by_importance, RULES, NOW) is None
    by_age = ForgetRequest(
        "ann", ForgetPolicy.HARD_DELETE, HardDeleteStrategy.TIME_BASED, max_age_days=10
    )
    assert decide(memory(0, created_days=11), by_age, RULES, NOW) is not None
    assert decide(memory(0, created_days=9), by_age, RULES, NOW) is None
    by_capacity = ForgetRequest(
        "ann", ForgetPolicy.HARD_DELETE, HardDeleteStrategy.CAPACITY_BASED, max_capacity=1
    )
    kept = memory(0, importance=0.9, memory_id="mem_a")
    over = memory(0, importance=0.5, memory_id="mem_b")
    assert decide(over, by_capacity, RULES, NOW, over.rank_key) is not None
    assert decide(kept, by_capacity, RULES, NOW, over.rank_key) is None
    assert decide(over, by_capacity, RULES, NOW, None) is None  # within capacity
    # Soft-deleted memories rank after every live one.
    assert memory(0, importance=1.0, deleted=True).rank_key > over.rank_key


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"policy": ForgetPolicy.HARD_DELETE}, "strategy"),
        ({"strategy": HardDeleteStrategy.TIME_BASED}, "strategy"),
        ({"threshold": 1.5}, "threshold"),
        ({"max_age_days": 0}, "maxAgeDays"),
        ({"max_capacity": -1}, "maxCapacity"),
        ({"memory_ids": tuple(f"mem_{i}" for i in range(1001))}, "memoryIds"),
    ],
)
def test_bad_requests_name_their_field(fields: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        ForgetRequest("ann", **fields)  # type: ignore[arg-type]
    assert raised.value.field == field


def _fuzzed_300_and_1000_days_idle() -> tuple[Decision, Decision]:
    """FUZZ's decisions on mem_1, idle 300 days, and mem_2, idle 1000 (each is one)."""
    d1 = decide(memory(300, memory_id="mem_1"), FUZZ, RULES, NOW)
    d2 = decide(memory(1000, memory_id="mem_2"), FUZZ, RULES, NOW)
    assert d1 is not None
    assert d2 is not None
    return d1, d2


def test_tally_and_report() -> None:
    d1, d2 = _fuzzed_300_and_1000_days_idle()
    counts = tally({}, 5, 1, [d1, d2])
    assert count(counts, "scanned") == 5
    assert count(counts, "unchanged") == 2
    assert count(counts, "fuzz") == 2
    assert [(m.to_level, m.count) for m in moves(counts)] == [
        (MemoryLevel.TAG, 1),
        (MemoryLevel.TRACE, 1),
    ]
    resumed = tally(counts, 3, 0, [])
    assert count(resumed, "scanned") == 8
    assert count(resumed, "batches") == 2
    report = ForgetReport(FUZZ, False, NOW, counts=counts).showing([d1, d2])
    assert not report.changes_truncated
    assert ForgetReport(FUZZ, False, NOW, counts=counts).changes_truncated


def test_decisions_left_undone_are_taken_back_from_the_counts() -> None:
    d1, d2 = _fuzzed_300_and_1000_days_idle()
    counts = tally({}, 5, 1, [d1, d2])
    after = left_alone(counts, [d1])
    assert (count(after, "changed"), count(after, "unchanged"), count(after, "fuzz")) == (1, 3, 1)
    # Its level move is gone from the moves, not listed with a count of 0.
    assert [(m.to_level, m.count) for m in moves(after)] == [(MemoryLevel.TRACE, 1)]
    assert left_alone(counts, []) == counts
    report = ForgetReport(FUZZ, False, NOW, counts=after).showing([d1, d2]).without(["mem_1"])
    assert [d.memory_id for d in report.changes] == ["mem_2"]
