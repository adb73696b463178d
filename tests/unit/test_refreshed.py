"""The cache whose entries are refreshed behind the requests that read them."""

from __future__ import annotations

import asyncio

from hippograph.errors import Unavailable
from hippograph.services.refreshed import Refreshed


class _Loader:
    """Answers ``value`` for every key, counting the loads; ``fail`` makes the next ones fail."""

    def __init__(self) -> None:
        self.loads = 0
        self.value = 1
        self.fail = False
        self.gate = asyncio.Event()
        self.gate.set()

    async def __call__(self, key: str) -> int:
        self.loads += 1
        await self.gate.wait()
        if self.fail:
            raise Unavailable("the graph database cannot be reached")
        return self.value


async def _settled() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_only_the_first_read_waits_and_a_fresh_entry_is_not_loaded_again() -> None:
    load = _Loader()
    cache: Refreshed[str, int] = Refreshed(load, ttl_s=60)
    assert await cache.get("ann") == 1
    load.value = 2
    assert await cache.get("ann") == 1
    assert cache.peek("ann") == 1
    assert load.loads == 1


async def test_a_stale_entry_is_served_while_one_refresh_runs_behind_it() -> None:
    load = _Loader()
    cache: Refreshed[str, int] = Refreshed(load, ttl_s=0)
    assert await cache.get("ann") == 1
    load.value, load.gate = 2, asyncio.Event()
    # Three reads of the stale entry: each answers at once, one refresh starts.
    assert [await cache.get("ann"), await cache.get("ann"), cache.peek("ann")] == [1, 1, 1]
    await _settled()
    assert load.loads == 2
    load.gate.set()
    await _settled()
    assert cache.peek("ann") == 2


async def test_a_refresh_that_fails_keeps_the_old_value_and_the_next_read_tries_again() -> None:
    load = _Loader()
    cache: Refreshed[str, int] = Refreshed(load, ttl_s=0)
    assert await cache.get("ann") == 1
    load.fail = True
    assert await cache.get("ann") == 1  # its refresh fails behind it
    await _settled()
    assert load.loads == 2
    load.fail, load.value = False, 3
    # The failure cost nothing but a later value: the old one is still served,
    # and this read's refresh brings the new one.
    assert await cache.get("ann") == 1
    await _settled()
    assert load.loads == 3
    assert cache.peek("ann") == 3


async def test_peek_never_waits_a_missing_entry_is_loaded_behind_it() -> None:
    load = _Loader()
    cache: Refreshed[str, int] = Refreshed(load, ttl_s=60)
    assert cache.peek("bob") is None
    await _settled()
    assert cache.peek("bob") == 1
    assert load.loads == 1
