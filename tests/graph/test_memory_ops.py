"""An agent's batch of memory operations: applied whole, or rolled back whole."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graph.store import GraphStore
from hippograph.errors import NotFound
from hippograph.models import MemoryOpsPlan
from tests.support import NO_SOURCES, T0, add_memory, add_user, indexed, memory

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


async def test_an_importance_set_in_place_lands_only_on_a_current_memory(
    store: GraphStore,
) -> None:
    await add_user(store, "ann")
    tea = await add_memory(store, memory("ann", "Ann drinks tea"))
    await store.memory_ops.apply(MemoryOpsPlan(), LATER, importances={tea.id: 0.9})
    found = await store.memories.get_memories([tea.id])
    assert found[tea.id].importance == 0.9
    assert found[tea.id].content == tea.content  # the same version, edited
    # A version superseded since the batch was checked rolls it all back.
    oslo = await add_memory(store, memory("ann", "Ann lives in Oslo"))
    lisbon = memory("ann", "Ann lives in Lisbon")
    meanwhile = T0 + timedelta(minutes=30)
    assert await store.memories.supersede(
        oslo, lisbon, indexed(lisbon.content, 3), NO_SOURCES, meanwhile
    )
    new = memory("ann", "Ann plays chess")
    plan = MemoryOpsPlan(adds=[(new, indexed(new.content, 4))])
    with pytest.raises(NotFound):
        await store.memory_ops.apply(plan, LATER, importances={oslo.id: 0.9})
    found = await store.memories.get_memories([oslo.id, new.id])
    assert found[oslo.id].importance == oslo.importance
    assert new.id not in found
