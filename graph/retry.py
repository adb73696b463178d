"""One retry policy for every graph operation: how often, how long, how far apart.

Each retry loop decides *what* it retries (a transient error, a server that
is gone, a lost race); the policy decides how long or how many times each
kind is tried again, and the pause before each new attempt.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from enum import Enum


class Failure(Enum):
    """The kinds of failure worth another attempt."""

    TRANSIENT = "transient"  # contention: a deadlock, a lock timeout
    UNAVAILABLE = "unavailable"  # the server is gone, perhaps only for a moment
    RACE = "race"  # lost a race to another writer of the same key or schema rule


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How long, or how often, each kind of failure is retried.

    The driver's own retry treats a lost server like a deadlock and keeps a
    request waiting for its whole budget (15 s) before failing; ours gives a
    server that is gone a short grace (a stale pooled connection, a blip),
    then answers UNAVAILABLE, and keeps the long budget for contention. A
    lost race is settled by the winner's commit, so one more attempt almost
    always matches it: a few are allowed, not a time budget.
    """

    transient_s: float = 15.0
    unavailable_s: float = 3.0
    races: int = 6

    def delay(self, retry: int) -> float:
        """Pause before retry ``retry`` (1, 2, …): exponential, jittered, at most 1 s."""
        return float(min(1.0, 0.02 * 2**retry) * random.uniform(0.5, 1.0))

    def gives_up(self, failure: Failure, retries: int, elapsed_s: float) -> bool:
        """Whether a ``failure`` after ``retries`` retries and ``elapsed_s`` seconds is final."""
        if failure is Failure.RACE:
            return retries >= self.races
        budget = self.transient_s if failure is Failure.TRANSIENT else self.unavailable_s
        return elapsed_s >= budget

    def attempts(self) -> Attempts:
        """A tracker for one operation's retries, started now."""
        return Attempts(self)


class Attempts:
    """One operation's retries under a policy: counted, timed, paced."""

    def __init__(self, policy: RetryPolicy) -> None:
        self._policy = policy
        self._started = time.monotonic()
        self.retries = 0

    def exhausted(self, failure: Failure) -> bool:
        """Whether this ``failure`` ends the operation."""
        elapsed = time.monotonic() - self._started
        return self._policy.gives_up(failure, self.retries, elapsed)

    async def pause(self) -> None:
        """Wait before the next attempt."""
        self.retries += 1
        await asyncio.sleep(self._policy.delay(self.retries))
