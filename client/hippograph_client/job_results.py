"""What the client returns about work the server may do in a job: memorize, reflect, forget."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hippograph_client.enums import (
    ForgetAction,
    ForgetPolicy,
    HardDeleteStrategy,
    MemoryLevel,
)
from hippograph_client.records import ForgetCounts as ForgetCounts
from hippograph_client.records import Job as Job
from hippograph_client.records import JobCounts as JobCounts
from hippograph_client.records import LevelMove as LevelMove
from hippograph_client.records import Message
from hippograph_client.records import TokenUsage as TokenUsage


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
