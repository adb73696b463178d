"""The API types the client's operations select, as frozen dataclasses."""

# Written by `python -m codegen` from operations/client.graphql: edit that, then run it again.

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hippograph_client.enums import (
    JobKind,
    JobStatus,
    MemoryCategory,
    MemoryKind,
    MemoryLevel,
    MemorySource,
    Role,
)


@dataclass(frozen=True)
class User:
    """A person whose memories the service keeps."""

    id: str
    name: str
    created_at: datetime


@dataclass(frozen=True)
class Session:
    """A conversation of one user."""

    id: str
    user_id: str
    title: str
    started_at: datetime


@dataclass(frozen=True)
class Message:
    """A raw message: what every memory traces back to."""

    id: str
    session_id: str
    user_id: str
    speaker: str
    role: Role
    content: str
    ts: datetime
    seq: int
    client_id: str | None


@dataclass(frozen=True)
class Job:
    """A background job. Poll `job(id)` until `status` is final."""

    id: str
    kind: JobKind
    status: JobStatus
    user_ids: tuple[str, ...]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    attempts: int
    error: str | None
    counts: JobCounts
    usage: TokenUsage
    forget_counts: ForgetCounts | None


@dataclass(frozen=True)
class JobCounts:
    """What a job made (or has made so far)."""

    messages: int
    memunits: int
    memories: int
    superseded: int
    pending: int
    reflections: int
    consolidated: int


@dataclass(frozen=True)
class TokenUsage:
    """Tokens an LLM used for a job (zero with the offline extractor)."""

    prompt_tokens: int
    completion_tokens: int
    calls: int


@dataclass(frozen=True)
class ForgetCounts:
    """What a forget run did (or would do), in numbers."""

    scanned: int
    exempt: int
    unchanged: int
    changed: int
    promoted: int
    fuzzed: int
    restored: int
    soft_deleted: int
    hard_deleted: int
    cascaded: int
    batches: int
    level_moves: tuple[LevelMove, ...]


@dataclass(frozen=True)
class LevelMove:
    """How many memories moved from one level to another."""

    from_level: MemoryLevel
    to_level: MemoryLevel
    count: int


@dataclass(frozen=True)
class Memory:
    """A memory of one user; each kind has its own type."""

    id: str
    user_id: str
    kind: MemoryKind
    content: str
    original_content: str | None
    level: MemoryLevel
    category: MemoryCategory
    importance: float
    source: MemorySource
    verified: bool
    created_at: datetime
    last_accessed_at: datetime
    access_count: int
    valid_from: datetime | None
    valid_to: datetime | None
    consolidated: bool
    domain: str | None
    topic: str | None
    session_id: str | None
    deleted_at: datetime | None
    about_start: datetime | None
    about_end: datetime | None


@dataclass(frozen=True)
class MemUnit:
    """The smallest unit extracted from a run of messages."""

    id: str
    user_ids: tuple[str, ...]
    session_id: str
    group_id: str | None
    summary: str
    narrative: str
    subject: str
    participants: tuple[str, ...]
    keywords: tuple[str, ...]
    ts: datetime
    source_type: str
