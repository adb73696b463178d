"""Many writers at once: nothing lost, nothing doubled."""

from __future__ import annotations

import asyncio

from graph.store import GraphStore
from hippograph.models import MemoryFilter, Sources
from tests.support import T0, add_session, add_user, indexed, memory, message


async def test_many_concurrent_writers_lose_nothing(store: GraphStore) -> None:
    await add_user(store, "ann")
    session = await add_session(store, "ann")

    async def writer(n: int) -> None:
        for i in range(5):
            await store.memories.add(
                memory("ann", f"w{n}-{i}"), indexed("w", n * 10 + i), Sources()
            )
            await store.messages.append(session.id, [message(session, f"w{n}-{i}")])

    await asyncio.gather(*(writer(n) for n in range(16)))
    assert await store.memories.count("ann") == 80
    page = await store.messages.messages_of_sessions([session.id], 200, None, None)
    seqs = [m.seq for m in page[session.id].items]
    assert len(seqs) == 80
    assert sorted(seqs) == list(range(1, 81))
    listed = await store.memories.list_memories("ann", MemoryFilter(), 200, None, T0)
    assert len({m.id for m in listed.items}) == 80
