"""Memories: provenance edges, all-or-nothing writes, filters, versions, deletion."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest

from graph.store import GraphStore
from hippograph.errors import Conflict, NotFound
from hippograph.ids import IdKind, new_id
from hippograph.models import Memory, MemoryFilter, MemoryKind, Message, Sources
from hippograph.pagination import TimeCursor
from tests.support import (
    T0,
    add_memory,
    add_memunit,
    add_user,
    conversation,
    indexed,
    memory,
)


async def test_a_memory_is_stored_with_edges_to_every_source(store: GraphStore) -> None:
    session, messages = await conversation(store, "ann", ["I like tea", "and coffee"])
    unit = await add_memunit(store, session, messages)
    base = await add_memory(store, memory("ann", "Ann drinks tea"))
    record = memory("ann", "Ann likes hot drinks")
    await add_memory(
        store,
        record,
        sources=Sources(
            message_ids=(messages[0].id,), memunit_ids=(unit.id,), memory_ids=(base.id,)
        ),
    )
    found = (await store.memories.get_memories([record.id]))[record.id]
    assert found == record
    sources = (await store.memories.derived_from([record.id], ["ann"]))[record.id]
    assert {s.id for s in sources} == {messages[0].id, unit.id, base.id}
    assert any(isinstance(s, Message) for s in sources)


async def test_a_missing_source_rolls_the_whole_memory_back(store: GraphStore) -> None:
    await add_user(store, "ann")
    record = memory("ann", "orphan")
    missing = new_id(IdKind.MESSAGE, T0)
    with pytest.raises(NotFound):
        await add_memory(store, record, sources=Sources(message_ids=(missing,)))
    assert await store.memories.get_memories([record.id]) == {}


async def test_derived_from_is_scoped(store: GraphStore) -> None:
    _, messages = await conversation(store, "ann", ["secret"])
    record = await add_memory(
        store, memory("ann", "x"), sources=Sources(message_ids=(messages[0].id,))
    )
    assert (await store.memories.derived_from([record.id], ["bob"]))[record.id] == []
    assert len((await store.memories.derived_from([record.id], None))[record.id]) == 1


async def test_list_filters_and_pages_newest_first(store: GraphStore) -> None:
    await add_user(store, "ann")
    await add_user(store, "bob")
    made = [
        await add_memory(
            store,
            memory(
                "ann",
                f"memory {i}",
                at=T0 + timedelta(minutes=i),
                kind=MemoryKind.EVENT if i % 2 else MemoryKind.SEMANTIC,
                importance=i / 10,
            ),
            seed=i,
        )
        for i in range(6)
    ]
    await add_memory(store, memory("bob", "not ann's"))
    everything = await store.memories.list_memories("ann", MemoryFilter(), 10, None, T0)
    assert [m.id for m in everything.items] == [m.id for m in reversed(made)]
    events = await store.memories.list_memories(
        "ann", MemoryFilter(kinds=(MemoryKind.EVENT,), min_importance=0.2), 10, None, T0
    )
    assert [m.content for m in events.items] == ["memory 5", "memory 3"]
    window = await store.memories.list_memories(
        "ann",
        MemoryFilter(
            created_after=T0 + timedelta(minutes=1), created_before=T0 + timedelta(minutes=3)
        ),
        10,
        None,
        T0,
    )
    assert [m.content for m in window.items] == ["memory 2", "memory 1"]
    first = await store.memories.list_memories("ann", MemoryFilter(), 4, None, T0)
    assert first.has_next
    last = first.items[-1]
    rest = await store.memories.list_memories(
        "ann", MemoryFilter(), 4, TimeCursor(last.created_at, last.id), T0
    )
    assert [m.id for m in first.items + rest.items] == [m.id for m in reversed(made)]
    assert not rest.has_next


async def test_supersede_keeps_the_old_version_out_of_default_lists(store: GraphStore) -> None:
    await add_user(store, "ann")
    old = await add_memory(store, memory("ann", "Ann lives in Paris"))
    new = replace(old, id=new_id(IdKind.MEMORY, T0), content="Ann lives in Lyon")
    later = T0 + timedelta(days=1)
    assert await store.memories.supersede(old, new, indexed(new.content, 1), Sources(), later)
    current = await store.memories.list_memories("ann", MemoryFilter(), 10, None, later)
    assert [m.content for m in current.items] == ["Ann lives in Lyon"]
    everything = await store.memories.list_memories(
        "ann", MemoryFilter(include_superseded=True), 10, None, later
    )
    assert {m.content for m in everything.items} == {"Ann lives in Paris", "Ann lives in Lyon"}
    kept = (await store.memories.get_memories([old.id]))[old.id]
    assert kept.valid_to == later
    # An old version cannot be superseded twice.
    again = replace(new, id=new_id(IdKind.MEMORY, T0))
    assert not await store.memories.supersede(old, again, indexed("x", 2), Sources(), later)
    assert await store.memories.get_memories([again.id]) == {}


async def test_of_writers_racing_to_supersede_one_version_one_wins(store: GraphStore) -> None:
    await add_user(store, "ann")
    later = T0 + timedelta(days=1)
    for round_ in range(3):
        old = await add_memory(store, memory("ann", f"Ann lives in Paris {round_}"))

        async def one(n: int, old: Memory = old) -> bool:
            new = replace(old, id=new_id(IdKind.MEMORY, later), content=f"Ann lives in Lyon {n}")
            try:
                return await store.memories.supersede(
                    old, new, indexed(new.content, n), Sources(), later
                )
            except Conflict:  # a server that detects the race refuses the loser
                return False

        won = await asyncio.gather(*(one(n) for n in range(8)))
        assert sum(won) == 1, won
    current = await store.memories.list_memories("ann", MemoryFilter(), 50, None, later)
    assert len(current.items) == 3


async def test_of_deletes_racing_on_one_memory_one_deletes_it(store: GraphStore) -> None:
    await add_user(store, "ann")
    for round_ in range(3):
        record = await add_memory(store, memory("ann", f"Ann keeps bees {round_}"))
        done = await asyncio.gather(*(store.memories.soft_delete(record.id, T0) for _ in range(6)))
        assert sum(done) == 1, done


async def test_update_changes_fields_in_place(store: GraphStore) -> None:
    await add_user(store, "ann")
    record = await add_memory(store, memory("ann", "x"))
    updated = await store.memories.update(record.id, {"importance": 0.9, "domain": "food"}, T0)
    assert updated is not None
    assert (updated.importance, updated.domain, updated.content) == (0.9, "food", "x")


async def test_a_new_version_built_before_an_edit_in_place_is_not_written(
    store: GraphStore,
) -> None:
    # A correction copies the importance it read: written after an edit in
    # place, it would undo the edit. The service builds it again (services/).
    await add_user(store, "ann")
    read = await add_memory(store, memory("ann", "Ann lives in Paris", importance=0.5))
    later = T0 + timedelta(minutes=1)
    edited = await store.memories.update(read.id, {"importance": 0.95}, later)
    assert edited is not None
    new = replace(read, id=new_id(IdKind.MEMORY, later), content="Ann lives in Lyon")
    assert not await store.memories.supersede(read, new, indexed("x", 2), Sources(), later)
    assert await store.memories.get_memories([new.id]) == {}
    assert (await store.memories.get_memories([read.id]))[read.id].valid_to is None
    # Built from the version as it is now, it is written.
    again = replace(edited, id=new_id(IdKind.MEMORY, later), content="Ann lives in Lyon")
    assert await store.memories.supersede(edited, again, indexed("x", 2), Sources(), later)


async def test_a_version_superseded_later_than_a_writes_now_is_not_current_to_it(
    store: GraphStore,
) -> None:
    # Two corrections whose instants were taken before either wrote: the one
    # that waited comes with the earlier ``now``, and the version it read has
    # a ``valid_to`` still ahead of it. Its successor tells it apart.
    await add_user(store, "ann")
    old = await add_memory(store, memory("ann", "Ann lives in Paris"))
    first, second = T0 + timedelta(minutes=2), T0 + timedelta(minutes=1)
    a = replace(old, id=new_id(IdKind.MEMORY, first), content="Ann lives in Lyon")
    b = replace(old, id=new_id(IdKind.MEMORY, second), content="Ann lives in Nice")
    assert await store.memories.supersede(old, a, indexed("x", 2), Sources(), first)
    assert not await store.memories.supersede(old, b, indexed("y", 3), Sources(), second)
    assert await store.memories.update(old.id, {"importance": 0.95}, second) is None
    assert await store.memories.get_memories([b.id]) == {}


async def test_an_update_that_comes_after_a_new_version_changes_nothing(store: GraphStore) -> None:
    await add_user(store, "ann")
    old = await add_memory(store, memory("ann", "Ann lives in Paris"))
    later = T0 + timedelta(minutes=1)
    new = replace(memory("ann", "Ann lives in Lyon"), id=new_id(IdKind.MEMORY, later))
    assert await store.memories.supersede(old, new, indexed("x", 2), Sources(), later)

    assert await store.memories.update(old.id, {"importance": 0.95}, later) is None

    kept = (await store.memories.get_memories([old.id]))[old.id]
    assert kept.importance == old.importance


async def test_soft_delete_hides_and_hard_delete_removes(store: GraphStore) -> None:
    _, messages = await conversation(store, "ann", ["hi"])
    soft = await add_memory(store, memory("ann", "soft"), sources=Sources((messages[0].id,)))
    hard = await add_memory(store, memory("ann", "hard"), sources=Sources((messages[0].id,)))
    assert await store.memories.soft_delete(soft.id, T0)
    assert not await store.memories.soft_delete(soft.id, T0)
    assert await store.memories.hard_delete(hard.id, T0)
    assert not await store.memories.hard_delete(hard.id, T0)
    listed = await store.memories.list_memories("ann", MemoryFilter(), 10, None, T0)
    assert listed.items == ()
    with_deleted = await store.memories.list_memories(
        "ann", MemoryFilter(include_deleted=True), 10, None, T0
    )
    assert [m.id for m in with_deleted.items] == [soft.id]
    assert await store.memories.get_memories([hard.id]) == {}
    # The message is untouched by either deletion.
    assert messages[0].id in await store.messages.get_messages([messages[0].id])
    assert await store.memories.count("ann") == 1


async def test_add_many_writes_memories_and_edges_in_one_go(store: GraphStore) -> None:
    _, messages = await conversation(store, "ann", ["a", "b"])
    items = [
        (
            memory("ann", f"bulk {i}"),
            indexed(f"bulk {i}", i),
            Sources(message_ids=(messages[i % 2].id,)),
        )
        for i in range(50)
    ]
    assert await store.memories.add_many(items) == 50
    assert await store.memories.count("ann") == 50
    sources = await store.memories.derived_from([items[3][0].id], None)
    assert [s.id for s in sources[items[3][0].id]] == [messages[1].id]


async def test_add_many_is_all_or_nothing(store: GraphStore) -> None:
    await add_user(store, "ann")
    missing = new_id(IdKind.MESSAGE, T0)
    items = [
        (memory("ann", "fine"), indexed("fine", 1), Sources()),
        (memory("ann", "broken"), indexed("broken", 2), Sources(message_ids=(missing,))),
    ]
    with pytest.raises(NotFound):
        await store.memories.add_many(items)
    assert await store.memories.count("ann") == 0
