"""Waiting for a job: when to ask again and when to give up (no I/O: both clients use it)."""

from __future__ import annotations

import time
from collections.abc import Callable

from hippograph_client.enums import JobStatus
from hippograph_client.errors import JobFailed, JobTimeout, NotFound
from hippograph_client.job_results import (
    Job,
)

DEFAULT_JOB_TIMEOUT = 120.0
"""Seconds the client waits for a job by default."""

FIRST_DELAY = 0.05
LONGEST_DELAY = 1.0


def check_timeout(timeout: float) -> None:
    """Refuse a timeout no wait could honour, before anything is sent."""
    if not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")


class JobWait:
    """The polling of one job: delays from 50 ms doubling to 1 s, within ``timeout``."""

    def __init__(
        self, job_id: str, timeout: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        check_timeout(timeout)
        self.job_id = job_id
        self.timeout = timeout
        self._clock = clock
        self._deadline = clock() + timeout
        self._delay = FIRST_DELAY

    def after(self, job: Job | None) -> float | None:
        """Seconds to wait before asking again, or None when ``job`` succeeded.

        Raises ``JobFailed`` for a failed job, ``NotFound`` if the job is gone
        (or not this key's), and ``JobTimeout`` once the time is up.
        """
        if job is None:
            raise NotFound("NOT_FOUND", f"job {self.job_id!r} not found", id=self.job_id)
        if job.status is JobStatus.SUCCEEDED:
            return None
        if job.status is JobStatus.FAILED:
            raise JobFailed(job)
        left = self._deadline - self._clock()
        if left <= 0:
            raise JobTimeout(self.job_id, job.status.value, self.timeout)
        delay = min(self._delay, left)
        self._delay = min(self._delay * 2, LONGEST_DELAY)
        return delay
