"""Many writers at once: nothing lost, nothing doubled."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, LiteralString

import pytest
from neo4j import AsyncManagedTransaction

from graph.driver import fetch
from graph.memories import HARD_DELETE_MEMORY
from graph.store import GraphStore
from graph.user_deletion import DELETE_USER
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


async def _added(store: GraphStore, _: str) -> bool:
    """Whether a new memory of ann's was written (not refused with ``NotFound``)."""
    record = memory("ann", "Ann moved to Boston")
    try:
        await store.memories.add(record, indexed(record.content, 1), Sources())
    except NotFound:
        return False
    return True


# Each write that waits for the lock of a node (ann's memory, or ann), the
# deletion of that node, and the write: whether it said it wrote.
_LOCKED_WRITES: dict[
    str, tuple[LiteralString, Callable[[GraphStore, str], Coroutine[Any, Any, bool]]]
] = {
    "update": (HARD_DELETE_MEMORY, _updated),
    "soft delete": (HARD_DELETE_MEMORY, lambda store, mid: store.memories.soft_delete(mid, T0)),
    "boost": (
        HARD_DELETE_MEMORY,
        lambda store, mid: _applied(store, MemoryOpsPlan(boosts=[mid], boost=0.3)),
    ),
    "batch delete": (
        HARD_DELETE_MEMORY,
        lambda store, mid: _applied(store, MemoryOpsPlan(soft_deletes=[mid])),
    ),
    "add under the user": (DELETE_USER, _added),
}


@pytest.mark.only_on("neo4j", "ArcadeDB takes no lock: it refuses the later of the two commits")
@pytest.mark.parametrize("write", sorted(_LOCKED_WRITES))
async def test_a_write_that_waited_while_its_node_was_deleted_finds_it_gone(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path, write: str
) -> None:
    # Neo4j lets a write that waited for the lock of a node deleted meanwhile
    # set it without an error, and reads its properties as null: a boost
    # counted the memory as boosted, a test of ``deleted_at IS NULL`` passed
    # (graph.cypher.locked), and a memory was created for a user deleted
    # under it (graph/memories.py: CREATE_MEMORIES).
    await add_user(store, "ann")
    record = await add_memory(store, memory("ann", "Ann once had a red bike"))
    deletion_query, write_it = _LOCKED_WRITES[write]
    deleting, release = asyncio.Event(), asyncio.Event()

    async def delete(tx: AsyncManagedTransaction) -> None:
        await fetch(tx, deletion_query, {"id": record.id, "user_id": "ann"})
        deleting.set()
        await release.wait()  # the node stays locked, deleted, uncommitted

    async with graph_db.connections(tmp_path) as (deleter, writer):
        deletion = asyncio.create_task(deleter.store.graph.write(delete))
        await deleting.wait()
        waiting = asyncio.create_task(write_it(writer.store, record.id))
        await asyncio.sleep(0.5)
        assert not waiting.done()  # it waits for the node's lock
        release.set()
        await deletion
        assert await waiting is False
    # Nothing of what it would have written is there: no memory is left but
    # the one the user's deletion leaves (it deletes only the user node).
    left = 1 if deletion_query is DELETE_USER else 0
    assert await store.memories.count("ann") == left
