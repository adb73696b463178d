"""How the client waits for a job: backoff, deadline, and what the end of a wait means."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hippograph_client import Job, JobCounts, JobFailed, JobKind, JobStatus, JobTimeout, NotFound
from hippograph_client.job_results import (
    TokenUsage,
)
from hippograph_client.waiting import JobWait, check_timeout, outcome

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
    wait = JobWait(60, Clock())
    delays = [wait.pause(QUEUED) for _ in range(8)]
    assert delays == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("status", [JobStatus.SUCCEEDED, JobStatus.FAILED])
def test_a_finished_job_ends_the_wait(status: JobStatus) -> None:
    assert JobWait(1, Clock()).pause(replace(QUEUED, status=status)) is None


def test_a_job_that_is_gone_ends_the_wait() -> None:
    assert JobWait(1, Clock()).pause(None) is None


def test_the_wait_never_sleeps_past_its_deadline_then_ends() -> None:
    clock = Clock()
    wait = JobWait(0.3, clock)
    running = replace(QUEUED, status=JobStatus.RUNNING)
    assert wait.pause(running) == 0.05
    clock.now += 0.25
    assert wait.pause(running) == pytest.approx(0.05)  # what is left, not the 0.1 step
    clock.now += 0.05
    assert wait.pause(running) is None


def test_a_wait_of_no_time_asks_once() -> None:
    assert JobWait(0, Clock()).pause(QUEUED) is None


def test_a_succeeded_job_is_the_outcome() -> None:
    done = replace(QUEUED, status=JobStatus.SUCCEEDED)
    assert outcome("job_01", done, 1) is done


def test_a_failed_job_raises_job_failed_with_its_reason() -> None:
    failed = replace(QUEUED, status=JobStatus.FAILED, error="LLM unreachable")
    with pytest.raises(JobFailed, match="LLM unreachable") as raised:
        outcome("job_01", failed, 1)
    assert raised.value.job == failed
    assert raised.value.code == "JOB_FAILED"


def test_a_job_still_running_at_the_end_raises_job_timeout_naming_it() -> None:
    with pytest.raises(JobTimeout) as raised:
        outcome("job_01", replace(QUEUED, status=JobStatus.RUNNING), 0.3)
    assert raised.value.job_id == "job_01"
    assert raised.value.status == "RUNNING"


def test_a_job_that_is_gone_raises_not_found() -> None:
    with pytest.raises(NotFound) as raised:
        outcome("job_01", None, 1)
    assert raised.value.id == "job_01"


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf")])
def test_a_timeout_that_cannot_be_waited_is_refused(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout"):
        check_timeout(timeout)


@pytest.mark.parametrize("seconds", [-1, float("nan"), float("inf")])
def test_a_wait_of_less_than_no_time_is_refused(seconds: float) -> None:
    with pytest.raises(ValueError, match="wait"):
        JobWait(seconds, Clock())


def test_a_poll_may_take_what_is_left_of_the_wait_and_a_second() -> None:
    clock = Clock()
    wait = JobWait(3, clock)
    assert wait.poll_limit() == pytest.approx(4.0)
    clock.now += 2.5
    assert wait.poll_limit() == pytest.approx(1.5)
    clock.now += 10
    assert wait.poll_limit() == pytest.approx(1.0)
