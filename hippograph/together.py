"""Questions to a model asked at once, none left running when one of them fails."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TypeVar

T = TypeVar("T")


async def all_or_none(awaitables: Iterable[Awaitable[T]]) -> list[T]:
    """The results of ``awaitables``, run at once, in their order.

    When one fails, the others are cancelled, and waited for, before its
    error is raised: ``asyncio.gather`` would leave them running after the
    job that asked them had failed, holding the model's slots while its
    next try starts, their cost recorded nowhere.
    """
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
