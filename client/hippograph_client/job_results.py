"""What the client returns about work the server may do in a job: memorize, reflect, forget."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hippograph_client.enums import (
    ForgetAction,
    ForgetPolicy,
    HardDeleteStrategy,
    JobKind,
    JobStatus,
    MemoryLevel,
)
from hippograph_client.results import Message


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
    """Tokens an LLM used for a job."""

    prompt_tokens: int
    completion_tokens: int
    calls: int


@dataclass(frozen=True)
class LevelMove:
    """How many memories moved from one level to another."""

    from_level: MemoryLevel
    to_level: MemoryLevel
    count: int


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
class Job:
    """A background job; it is done once its ``status`` is SUCCEEDED or FAILED."""

    id: str
    kind: JobKind
    status: JobStatus
    user_ids: tuple[str, ...]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    attempts: int
    counts: JobCounts
    error: str | None
    usage: TokenUsage
    forget_counts: ForgetCounts | None


@dataclass(frozen=True)
class MemorizeResult:
    """The messages as stored, and the work: ``counts`` when done at once, ``job`` when queued.

    When the client waited for a queued job, ``job`` is its final state and
    ``counts`` its counts.
    """

    messages: tuple[Message, ...]
    created: int
    counts: JobCounts | None
    job: Job | None


@dataclass(frozen=True)
class ReflectResult:
    """A reflect run's job (its final state when the client waited)."""

    job: Job


@dataclass(frozen=True)
class ForgetChange:
    """What happened (or would) to one memory."""

    memory_id: str
    action: ForgetAction
    weight: float
    from_level: MemoryLevel
    to_level: MemoryLevel
    promoted: bool
    reason: str


@dataclass(frozen=True)
class ForgetReport:
    """The report of a forget run (the same for a dry run and a real one)."""

    user_id: str
    policy: ForgetPolicy
    strategy: HardDeleteStrategy | None
    dry_run: bool
    as_of: datetime
    counts: ForgetCounts
    changes: tuple[ForgetChange, ...]
    changes_truncated: bool


@dataclass(frozen=True)
class ForgetResult:
    """A forget run: its ``report`` when it ran at once, its ``job`` when queued."""

    report: ForgetReport | None = None
    job: Job | None = None
