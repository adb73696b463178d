"""Questions asked at once: when one fails, the others stop."""

from __future__ import annotations

import asyncio

import pytest

from hippograph.together import all_or_none


async def test_the_results_come_in_order() -> None:
    async def after(delay: float, value: int) -> int:
        await asyncio.sleep(delay)
        return value

    assert await all_or_none([after(0.02, 1), after(0.0, 2), after(0.01, 3)]) == [1, 2, 3]


async def test_when_one_fails_the_others_are_cancelled_before_it_is_raised() -> None:
    finished: list[str] = []
    cancelled: list[str] = []

    async def slow(name: str) -> str:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(name)
            raise
        finished.append(name)
        return name

    async def failing() -> str:
        await asyncio.sleep(0.01)
        raise RuntimeError("the model is down")

    with pytest.raises(RuntimeError, match="the model is down"):
        await all_or_none([slow("a"), failing(), slow("b")])

    assert sorted(cancelled) == ["a", "b"]
    await asyncio.sleep(0.05)
    assert finished == []
