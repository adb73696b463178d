"""The in-process event bus: delivery by topic, and a bounded backlog per listener."""

from __future__ import annotations

import logging

import pytest

from hippograph.broadcast import LocalBroadcast
from hippograph.events import MemoriesAdded


def _added(user_id: str, n: int) -> MemoriesAdded:
    return MemoriesAdded(user_id=user_id, memory_ids=(f"mem_{n}",))


async def test_a_listener_hears_its_topic_only_and_goes_with_its_subscription() -> None:
    bus = LocalBroadcast()
    async with bus.subscribe("memories:ann") as ann:
        await bus.publish(_added("bob", 1))
        await bus.publish(_added("ann", 2))
        assert bus.subscribers == 1
        assert await ann.next(1.0) == _added("ann", 2)
        assert await ann.next(0.01) is None
    assert bus.subscribers == 0
    await bus.publish(_added("ann", 3))  # no one listens: nothing is kept


async def test_a_listener_that_falls_behind_drops_newer_events_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A stalled websocket must not hold memory without bound.
    bus = LocalBroadcast(backlog=2)
    with caplog.at_level(logging.WARNING, logger="hippograph.broadcast"):
        async with bus.subscribe("memories:ann") as slow, bus.subscribe("memories:ann") as quick:
            for n in range(5):
                await bus.publish(_added("ann", n))
                assert await quick.next(1.0) == _added("ann", n)
            assert slow.dropped == 3
            assert quick.dropped == 0
            assert [await slow.next(1.0), await slow.next(0.01)] == [
                _added("ann", 0),
                _added("ann", 1),
            ]
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == ["a subscriber of memories:ann is falling behind; dropping events"]
