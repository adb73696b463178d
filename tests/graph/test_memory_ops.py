"""An agent's batch of memory operations: applied whole, or rolled back whole."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graph.store import GraphStore
from hippograph.errors import NotFound
from hippograph.models import MemoryOpsPlan
from tests.support import T0, add_memory, add_user, indexed, memory

LATER = T0 + timedelta(hours=1)


async def test_a_batch_adds_boosts_and_deletes_in_one_go(store: GraphStore) -> None:
    await add_user(store, "ann")
    kept = await add_memory(store, memory("ann", "Ann drinks tea", importance=0.9))
    faded = await add_memory(store, memory("ann", "Ann liked jazz"))
    wrong = await add_memory(store, memory("ann", "Ann lives in Oslo"))
    new = memory("ann", "Ann lives in Lisbon")
    plan = MemoryOpsPlan(
        adds=[(new, indexed(new.content, 1))],
        boosts=[kept.id],
        soft_deletes=[faded.id],
        hard_deletes=[wrong.id],
        boost=0.3,
    )
    await store.memory_ops.apply(plan, LATER)
    found = await store.memories.get_memories([kept.id, faded.id, wrong.id, new.id])
    assert found[kept.id].importance == 1.0  # 0.9 + 0.3, capped at 1
    assert found[faded.id].deleted_at == LATER  # soft: still there, marked
    assert wrong.id not in found  # hard: gone
    assert found[new.id].content == "Ann lives in Lisbon"


async def test_a_memory_deleted_meanwhile_rolls_the_whole_batch_back(store: GraphStore) -> None:
    await add_user(store, "ann")
    kept = await add_memory(store, memory("ann", "Ann drinks tea"))
    gone = await add_memory(store, memory("ann", "Ann liked jazz"))
    assert await store.memories.soft_delete(gone.id, T0)
    new = memory("ann", "Ann plays chess")
    plan = MemoryOpsPlan(
        adds=[(new, indexed(new.content, 2))], boosts=[kept.id, gone.id], boost=0.3
    )
    with pytest.raises(NotFound):
        await store.memory_ops.apply(plan, LATER)
    found = await store.memories.get_memories([kept.id, new.id])
    assert found[kept.id].importance == kept.importance  # not boosted
    assert new.id not in found  # not added
