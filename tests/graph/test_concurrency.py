"""Many writers at once: nothing lost, nothing doubled."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from neo4j import AsyncManagedTransaction

from graph.driver import fetch
from graph.memories import HARD_DELETE_MEMORY
from graph.store import GraphStore
from hippograph.errors import NotFound
from hippograph.models import MemoryFilter, MemoryOpsPlan, Sources
from tests.graphs import TestDatabase
from tests.support import T0, add_memory, add_session, add_user, indexed, memory, message


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


async def _applied(store: GraphStore, plan: MemoryOpsPlan) -> bool:
    """Whether the batch was applied (not rolled back with ``NotFound``)."""
    try:
        await store.memory_ops.apply(plan, T0)
    except NotFound:
        return False
    return True


async def _updated(store: GraphStore, memory_id: str) -> bool:
    return await store.memories.update(memory_id, {"importance": 0.9}, T0) is not None


# Each write that tests a memory under its lock, and whether it said it wrote it.
_LOCKED_WRITES: dict[str, Callable[[GraphStore, str], Coroutine[Any, Any, bool]]] = {
    "update": _updated,
    "soft delete": lambda store, mid: store.memories.soft_delete(mid, T0),
    "boost": lambda store, mid: _applied(store, MemoryOpsPlan(boosts=[mid], boost=0.3)),
    "batch delete": lambda store, mid: _applied(store, MemoryOpsPlan(soft_deletes=[mid])),
}


@pytest.mark.only_on("neo4j", "ArcadeDB takes no lock: it refuses the later of the two commits")
@pytest.mark.parametrize("write", sorted(_LOCKED_WRITES))
async def test_a_write_that_waited_while_its_memory_was_deleted_finds_it_gone(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path, write: str
) -> None:
    # Neo4j lets a write that waited for the lock of a node deleted meanwhile
    # set it without an error, and reads its properties as null: a boost
    # counted the memory as boosted, and a test of ``deleted_at IS NULL``
    # passed (graph.cypher.locked).
    await add_user(store, "ann")
    record = await add_memory(store, memory("ann", "Ann once had a red bike"))
    deleting, release = asyncio.Event(), asyncio.Event()

    async def delete(tx: AsyncManagedTransaction) -> None:
        await fetch(tx, HARD_DELETE_MEMORY, {"id": record.id})
        deleting.set()
        await release.wait()  # the memory stays locked, deleted, uncommitted

    async with graph_db.connections(tmp_path) as (deleter, writer):
        deletion = asyncio.create_task(deleter.store.graph.write(delete))
        await deleting.wait()
        waiting = asyncio.create_task(_LOCKED_WRITES[write](writer.store, record.id))
        await asyncio.sleep(0.5)
        assert not waiting.done()  # it waits for the memory's lock
        release.set()
        await deletion
        assert await waiting is False
    assert await store.memories.get_memories([record.id]) == {}
