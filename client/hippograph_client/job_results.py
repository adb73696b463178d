"""What the client returns about work the server may do in a job: memorize, reflect, forget.

The job, its counts and the forget report are records written from the
operations' fragments (``records.py``), re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass

from hippograph_client.records import ForgetChange as ForgetChange
from hippograph_client.records import ForgetCounts as ForgetCounts
from hippograph_client.records import ForgetReport as ForgetReport
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
class ForgetResult:
    """A forget run: its ``report`` when it ran at once, its ``job`` when queued."""

    report: ForgetReport | None = None
    job: Job | None = None
