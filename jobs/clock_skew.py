"""A process's clock against Redis's, compared once at start in server mode.

Two things compare times that different processes wrote:

* arq queues a job at its enqueuer's time, and a worker takes only the jobs
  whose time its own clock has reached: an API whose clock runs ahead of a
  worker's makes every job it queues wait by the difference;
* a run renews its job's lease with its own clock, and every worker's sweep
  calls the lease lapsed once its own clock is ``lease_s`` past the last
  renewal: a worker running ahead of another by most of a lease takes over
  that worker's live jobs (the first run stops at its next renewal; work is
  repeated, nothing is lost), and one running behind takes over a dead
  worker's jobs late.

Redis's clock is the one every process of a deployment reaches, so each
compares its own with it and warns when the difference could matter.
"""

from __future__ import annotations

import logging
from datetime import datetime

from hippograph.clock import Clock
from hippograph.errors import Unavailable
from jobs.arq_queue import ArqQueue

log = logging.getLogger(__name__)

# A lease is renewed every third of its length. Two processes that are each
# within a sixth of a lease of Redis are within a third of each other, which
# leaves a third of the lease for a late renewal before a live job looks lapsed.
WARN_SHARE_OF_LEASE = 1 / 6


def clock_skew(before: datetime, server: datetime, after: datetime) -> float:
    """Seconds this clock is ahead of the server's (negative: behind).

    ``before`` and ``after`` are this clock's readings around the request, so
    the server's reading is taken as the middle of them.
    """
    here = before + (after - before) / 2
    return (here - server).total_seconds()


def skew_warning(skew_s: float, lease_s: float) -> str | None:
    """What to tell an operator about ``skew_s``, or None when it is small enough."""
    allowed = lease_s * WARN_SHARE_OF_LEASE
    if abs(skew_s) <= allowed:
        return None
    direction = "ahead of" if skew_s > 0 else "behind"
    return (
        f"this host's clock is {abs(skew_s):.1f} s {direction} Redis's, more than the "
        f"{allowed:.1f} s allowed (a sixth of HIPPOGRAPH_JOBS__LEASE_S={lease_s:g}): jobs this "
        "process queues wait for the workers' clocks to catch up, and workers whose clocks "
        "differ by most of a lease take over each other's live jobs. Keep every host's clock "
        "synchronised (NTP)"
    )


async def check_clock(queue: ArqQueue, clock: Clock, lease_s: float) -> float | None:
    """Compare ``clock`` with Redis's and log a warning when they differ too much.

    Returns the skew in seconds, or None when Redis did not answer (a start
    does not fail over a diagnosis: the queue reports Redis's state itself).
    """
    before = clock()
    try:
        server = await queue.server_time()
    except Unavailable as exc:
        log.warning("could not compare this host's clock with Redis's: %s", exc.message)
        return None
    skew = clock_skew(before, server, clock())
    warning = skew_warning(skew, lease_s)
    if warning is not None:
        log.warning(warning)
    return skew
