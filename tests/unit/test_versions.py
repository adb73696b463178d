"""A memory's next version: the revised fields, a fresh start, the rest carried over."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from hippograph.models import (
    LevelChange,
    Memory,
    MemoryCategory,
    MemoryKind,
    MemoryLevel,
    MemorySource,
)
from hippograph.versions import Revision, next_version

CREATED = datetime(2024, 1, 1, tzinfo=UTC)
NOW = datetime(2025, 6, 1, tzinfo=UTC)

OLD = Memory(
    id="mem_old",
    user_id="ann",
    kind=MemoryKind.PROFILE,
    content="Ann lives in Paris",
    importance=0.4,
    created_at=CREATED,
    last_accessed_at=CREATED,
    category=MemoryCategory.CORE,
    source=MemorySource.USER,
    verified=True,
    access_count=7,
    original_content="Ann lives in Paris, near the Seine",
    valid_from=CREATED,
    domain="home",
    session_id="ses_1",
    topic="city",
)


def test_an_unrevised_field_is_carried_over_and_the_version_starts_now() -> None:
    new = next_version(OLD, Revision("Ann lives in Lyon"), "mem_new", NOW)
    assert (new.id, new.content, new.original_content) == ("mem_new", "Ann lives in Lyon", None)
    assert (new.created_at, new.last_accessed_at, new.access_count) == (NOW, NOW, 0)
    assert (new.valid_from, new.valid_to) == (NOW, None)
    assert (new.importance, new.category, new.domain) == (0.4, MemoryCategory.CORE, "home")
    assert (new.verified, new.source) == (True, MemorySource.USER)
    assert (new.kind, new.user_id, new.session_id, new.topic) == (
        MemoryKind.PROFILE,
        "ann",
        "ses_1",
        "city",
    )


def test_a_revised_field_replaces_the_old_value() -> None:
    revision = Revision(
        "Ann lives in Lyon",
        importance=0.9,
        category=MemoryCategory.FACT,
        domain="travel",
        verified=False,
        source=MemorySource.AGENT,
    )
    new = next_version(OLD, revision, "mem_new", NOW)
    assert (new.importance, new.category, new.domain) == (0.9, MemoryCategory.FACT, "travel")
    assert (new.verified, new.source) == (False, MemorySource.AGENT)


def test_a_zero_importance_is_a_revision_not_a_missing_value() -> None:
    assert next_version(OLD, Revision("x", importance=0.0), "mem_new", NOW).importance == 0.0


def test_a_faded_or_consolidated_memorys_new_text_is_whole_and_not_yet_reflected() -> None:
    faded = replace(
        OLD,
        level=MemoryLevel.TAG,
        level_history=(LevelChange(CREATED, MemoryLevel.FULL, MemoryLevel.TAG),),
        consolidated=True,
    )
    new = next_version(faded, Revision("Ann lives in Lyon"), "mem_new", NOW)
    assert (new.level, new.level_history, new.consolidated) == (MemoryLevel.FULL, (), False)


def test_a_planned_end_and_a_start_still_to_come_are_kept() -> None:
    ending = replace(OLD, valid_to=datetime(2031, 1, 1, tzinfo=UTC))
    new = next_version(ending, Revision("Ann lives in Porto"), "mem_new", NOW)
    assert (new.valid_from, new.valid_to) == (NOW, datetime(2031, 1, 1, tzinfo=UTC))
    later = replace(OLD, valid_from=datetime(2030, 1, 1, tzinfo=UTC))
    new = next_version(later, Revision("Ann will live in Lyon"), "mem_new", NOW)
    assert (new.valid_from, new.valid_to) == (datetime(2030, 1, 1, tzinfo=UTC), None)
