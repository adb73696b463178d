"""Background jobs as records: what was asked, how far it got, what it made.

A job's record lives in the graph beside the data it writes, so its status
survives restarts and is the same whichever runner (in-process or an arq
worker) picks it up. A job's ``params`` is its typed payload (declared
beside the service that does the work, hippograph/services/job_payloads.py),
which also says its kind. Ids are derived from what the job is, so submitting
the same work twice finds the first job instead of queueing another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Type only: the payloads live beside their services, which import this.
    from hippograph.services.job_payloads import JobPayload


class JobKind(StrEnum):
    """What a job does."""

    MEMORIZE = "memorize"
    REFLECT = "reflect"
    FORGET = "forget"


class JobStatus(StrEnum):
    """Where a job is in its life."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Job:
    """One background job and its outcome so far."""

    id: str
    status: JobStatus
    user_ids: tuple[str, ...]
    params: JobPayload
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    attempts: int = 0
    counts: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_calls: int = 0
    # How far a job that pages through data got: the last key it covered and
    # its counts so far, committed with each batch (forget runs).
    cursor: str = ""
    progress: Mapping[str, int] = field(default_factory=dict)

    @property
    def kind(self) -> JobKind:
        """What the job does (its payload says)."""
        return self.params.kind

    @property
    def finished(self) -> bool:
        """True once the job succeeded or failed for good."""
        return self.status in (JobStatus.SUCCEEDED, JobStatus.FAILED)


@dataclass(frozen=True, slots=True)
class Delivery:
    """One hand-over of a job's id to a runner (``JobQueue.enqueue``).

    ``attempt`` is how many times the job has started so far: a transport
    that deduplicates by id keys on both, so a resubmitted failed job runs.
    ``lapsed_at`` marks a delivery for another runner to take over a run
    whose lease lapsed at that time (see :class:`LapsedRun`): it is keyed
    apart from the submission's, once per lapse. ``queued_at`` marks a
    sweep's delivery of a job queued with none on its way (see
    :class:`QueuedRun`), keyed by the moment the sweep queued it.
    """

    job_id: str
    attempt: int = 0
    lapsed_at: datetime | None = None
    queued_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class LapsedRun:
    """A running job whose runner stopped renewing its lease (its process died or froze).

    ``attempt`` is the run's (the job's attempt count) and ``renewed_at`` when
    its lease was last taken or renewed: together they name this one lapse,
    so a transport that deduplicates deliveries delivers each lapse once.
    """

    job_id: str
    attempt: int
    renewed_at: datetime


@dataclass(frozen=True, slots=True)
class QueuedRun:
    """A job queued in the graph since ``queued_at``, waiting for its next run.

    ``attempt`` is how many runs it has had. A job queued for longer than a
    lease may have no delivery on its way at all: the process that queued it
    died between the graph's commit and the transport's, or the transport gave
    up on every delivery it had (arq's tries ran out on stop signals).
    """

    job_id: str
    attempt: int
    queued_at: datetime
