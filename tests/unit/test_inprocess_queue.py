"""The embedded mode's queue answers whether a call queued the job (a lease sweep logs only then)."""

from __future__ import annotations

from datetime import UTC, datetime

from hippograph.jobs import Delivery
from jobs.inprocess import InProcessQueue

JOB = "job_01JAAAAAAAAAAAAAAAAAAAAAAA"


async def test_a_job_waiting_or_running_is_not_queued_twice() -> None:
    queue = InProcessQueue()
    assert await queue.enqueue(Delivery(JOB)) is True
    # Another attempt, or a takeover of a lapse, of the same job: still one entry.
    assert await queue.enqueue(Delivery(JOB, 1)) is False
    assert (
        await queue.enqueue(Delivery(JOB, 1, lapsed_at=datetime(2026, 1, 1, tzinfo=UTC))) is False
    )
    assert await queue.take() == JOB
    assert await queue.enqueue(Delivery(JOB)) is False  # running here
    queue.done(JOB)
    assert await queue.enqueue(Delivery(JOB)) is True
    assert await queue.take() == JOB
    queue.done(JOB)
    await queue.drain()
