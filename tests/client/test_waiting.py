"""How the client waits for a job: backoff, deadline, and the errors it ends with."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hippograph_client import Job, JobCounts, JobFailed, JobKind, JobStatus, JobTimeout, NotFound
from hippograph_client.job_results import (
    TokenUsage,
)
from hippograph_client.waiting import JobWait

QUEUED = Job(
    id="job_01",
    kind=JobKind.MEMORIZE,
    status=JobStatus.QUEUED,
    user_ids=("ana",),
    created_at=datetime(2024, 5, 1, tzinfo=UTC),
    started_at=None,
    finished_at=None,
    attempts=0,
    counts=JobCounts(0, 0, 0, 0, 0, 0, 0),
    error=None,
    usage=TokenUsage(0, 0, 0),
    forget_counts=None,
)


class Clock:
    """Time that moves only when the test says."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_delays_double_from_50_ms_to_one_second_then_stay() -> None:
    wait = JobWait("job_01", 60, Clock())
    delays = [wait.after(QUEUED) for _ in range(8)]
    assert delays == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]


def test_a_succeeded_job_ends_the_wait() -> None:
    assert JobWait("job_01", 1, Clock()).after(replace(QUEUED, status=JobStatus.SUCCEEDED)) is None


def test_a_failed_job_raises_job_failed_with_its_reason() -> None:
    failed = replace(QUEUED, status=JobStatus.FAILED, error="LLM unreachable")
    with pytest.raises(JobFailed, match="LLM unreachable") as raised:
        JobWait("job_01", 1, Clock()).after(failed)
    assert raised.value.job == failed
    assert raised.value.code == "JOB_FAILED"


def test_the_wait_never_sleeps_past_its_deadline_and_then_names_the_job() -> None:
    clock = Clock()
    wait = JobWait("job_01", 0.3, clock)
    running = replace(QUEUED, status=JobStatus.RUNNING)
    assert wait.after(running) == 0.05
    clock.now += 0.25
    assert wait.after(running) == pytest.approx(0.05)  # what is left, not the 0.1 step
    clock.now += 0.05
    with pytest.raises(JobTimeout) as raised:
        wait.after(running)
    assert raised.value.job_id == "job_01"
    assert raised.value.status == "RUNNING"


def test_a_job_that_is_gone_raises_not_found() -> None:
    with pytest.raises(NotFound) as raised:
        JobWait("job_01", 1, Clock()).after(None)
    assert raised.value.id == "job_01"


@pytest.mark.parametrize("timeout", [0, -1, float("nan")])
def test_a_timeout_that_cannot_be_waited_is_refused(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout"):
        JobWait("job_01", timeout, Clock())
