"""Waiting for a job: when to ask again, when to stop, and what the end means (no I/O:
both clients use it)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from hippograph_client.enums import JobStatus
from hippograph_client.errors import JobFailed, JobTimeout, NotFound
from hippograph_client.job_results import Job

DEFAULT_JOB_TIMEOUT = 120.0
"""Seconds the client waits for a job by default."""

FIRST_DELAY = 0.05
LONGEST_DELAY = 1.0
POLL_GRACE = 1.0
"""Seconds past the wait's deadline that its last poll may take to answer."""

FINISHED = frozenset({JobStatus.SUCCEEDED, JobStatus.FAILED})
"""A job in one of these states will not change again."""


def check_timeout(timeout: float) -> None:
    """Refuse a timeout no wait could honour, before anything is sent."""
    if not 0 < timeout < math.inf:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")


class JobWait:
    """The polling of one job: delays from 50 ms doubling to 1 s, within ``seconds``."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        if not 0 <= seconds < math.inf:
            raise ValueError(f"a wait is zero or more seconds, not {seconds!r}")
        self._clock = clock
        self._deadline = clock() + seconds
        self._delay = FIRST_DELAY

    def pause(self, job: Job | None) -> float | None:
        """Seconds to wait before asking again; None when there is nothing to wait for
        (no such job, a finished one) or the time is up."""
        if job is None or job.status in FINISHED:
            return None
        left = self._deadline - self._clock()
        if left <= 0:
            return None
        delay = min(self._delay, left)
        self._delay = min(self._delay * 2, LONGEST_DELAY)
        return delay

    def poll_limit(self) -> float:
        """Seconds the next poll may take: what is left of the wait, and a grace.

        A poll's own request is bounded only by the client's HTTP timeout,
        which may be far longer than the wait; a server that stops answering
        would hold the wait that long.
        """
        return max(0.0, self._deadline - self._clock()) + POLL_GRACE


def outcome(job_id: str, job: Job | None, timeout: float) -> Job:
    """``job`` as a wait for its success ends: the job if it succeeded, else why not.

    Raises ``NotFound`` if the job is gone (or not this key's), ``JobFailed``
    for a failed job, and ``JobTimeout`` for one still running.
    """
    if job is None:
        raise NotFound("NOT_FOUND", f"job {job_id!r} not found", id=job_id)
    if job.status is JobStatus.FAILED:
        raise JobFailed(job)
    if job.status is not JobStatus.SUCCEEDED:
        raise JobTimeout(job_id, job.status.value, timeout)
    return job
