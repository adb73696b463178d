"""A memory's next version: what a correction writes beside the old one.

New content never overwrites a memory: the new version ``SUPERSEDES`` the old
one, which keeps its text and gets ``valid_to`` (docs/design.md §3). ``updateMemory``
and ``applyMemoryOps`` UPDATE both build the new version here, so the two
cannot disagree about what a version is. Both make one only for new text: the
same text with another importance is an edit of the current version in place.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime

from hippograph.ids import IdKind, derived_id
from hippograph.models import Memory, MemoryCategory, MemoryLevel, MemorySource
from hippograph.querytime import dated

# What an edit in place may change, and a new version copies from the version
# it was built from: the graph writes a new version only while these are
# still as read (graph/memories.py: SUPERSEDE_MEMORY).
EDITABLE = ("importance", "category", "domain", "verified")


def edited_fields(memory: Memory) -> tuple[object, ...]:
    """``memory``'s values of :data:`EDITABLE`."""
    return tuple(getattr(memory, name) for name in EDITABLE)


@dataclass(frozen=True, slots=True)
class Revision:
    """What a new version changes; None keeps the old version's value."""

    content: str
    importance: float | None = None
    category: MemoryCategory | None = None
    domain: str | None = None
    verified: bool | None = None
    source: MemorySource | None = None


def next_version(old: Memory, revision: Revision, memory_id: str, at: datetime) -> Memory:
    """The version of ``old`` that supersedes it at ``at``, with the revised content.

    Its validity starts at ``at``, the instant the write gives the old version
    as ``valid_to``: the versions of a memory then follow one another without
    overlap, so at any time exactly one of them was valid. Keeping the old
    ``valid_from`` would make both versions valid over the old one's whole
    period: two disagreeing memories for the same time. Memorize supersedes a
    profile value the same way (the new value starts where the old one ends).
    A period still to come is the old version's own: the new one takes over
    its start and its end.
    """
    return dated(
        replace(
            old,
            id=memory_id,
            content=revision.content,
            original_content=None,
            # New text is whole, and no reflection has read it yet: the old
            # version's fading and consolidation stay with the old text.
            level=MemoryLevel.FULL,
            level_history=(),
            consolidated=False,
            importance=old.importance if revision.importance is None else revision.importance,
            category=revision.category or old.category,
            domain=old.domain if revision.domain is None else revision.domain,
            verified=old.verified if revision.verified is None else revision.verified,
            source=revision.source or old.source,
            created_at=at,
            last_accessed_at=at,
            access_count=0,
            # A memory that starts later ("Ann will live in Lyon from 2030")
            # keeps its start, and one planned to end keeps its end: a
            # correction of the text changes neither.
            valid_from=at if old.valid_from is None or old.valid_from <= at else old.valid_from,
            valid_to=old.valid_to,
        )
    )


def returned_id(memory_id: str, at: datetime) -> str:
    """The id of profile value ``memory_id`` said again at ``at``, after another replaced it.

    The value's first memory keeps its period (it was superseded); the return
    is a version of its own, so the history reads Lisbon, Porto, Lisbon. A
    replay of the same statement gets the same id.
    """
    return derived_id(IdKind.MEMORY, "returned", memory_id, at.astimezone(UTC).isoformat())
