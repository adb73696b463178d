"""Reflection's store: the facts waiting for one, who is due, and a reflection written once."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from neo4j import AsyncManagedTransaction

from graph.driver import fetch
from graph.store import GraphConnection, GraphStore
from graph.user_deletion import DELETE_USER
from hippograph.entities import entity_id
from hippograph.models import (
    EntityKind,
    EntityMention,
    MemoryFilter,
    MemoryKind,
    MemoryOpsPlan,
    Mentions,
    Sources,
)
from tests.graphs import TestDatabase
from tests.support import T0, add_memory, add_user, indexed, memory

KINDS = ("semantic", "profile", "reflection")
NOW = T0 + timedelta(days=1)


async def test_pending_facts_are_counted_listed_and_claimed_by_one_reflection(
    store: GraphStore,
) -> None:
    await add_user(store, "ann")
    await add_user(store, "bob")
    facts = [
        await add_memory(
            store, memory("ann", f"Ann fact {i}", at=T0 + timedelta(minutes=i), importance=0.8)
        )
        for i in range(3)
    ]
    await add_memory(store, memory("ann", "Ann ran", kind=MemoryKind.EVENT))  # not a fact
    await add_memory(store, memory("ann", "made later", at=NOW + timedelta(hours=1)))
    await add_memory(store, memory("bob", "Bob fact", importance=0.3))
    count, weight = await store.reflection.pending_total("ann", KINDS, NOW, NOW)
    assert count == 3
    assert abs(weight - 2.4) < 1e-9
    pending = await store.reflection.pending("ann", KINDS, NOW, NOW, 10)
    assert [p.id for p in pending] == [f.id for f in facts]  # oldest first, none made later
    assert all(len(p.vector) == 384 for p in pending)
    due = await store.reflection.users_with_pending(KINDS, 2, 1.0, "", 10, NOW)
    assert due == ["ann"]  # Bob has one light fact
    assert await store.reflection.last_reflection_at("ann") is None

    reflection = memory("ann", "What Ann has shared", kind=MemoryKind.REFLECTION, at=NOW)
    ids = [f.id for f in facts[:2]]
    made = await store.reflection.write([(reflection, indexed(reflection.content, 9), ids)])
    assert made == (1, 2)
    # Written once: the same reflection again, or another claiming a taken fact, adds nothing.
    rival = memory("ann", "Another summary", kind=MemoryKind.REFLECTION, at=NOW)
    again = [(reflection, indexed(reflection.content, 9), ids)]
    assert await store.reflection.write(again) == (0, 0)
    assert await store.reflection.write([(rival, indexed("x", 3), [facts[1].id])]) == (0, 0)
    assert await store.reflection.last_reflection_at("ann") == NOW
    # One the user deleted starts no cooldown.
    gone = memory("ann", "A wrong summary", kind=MemoryKind.REFLECTION, at=NOW + timedelta(hours=1))
    assert await store.reflection.write([(gone, indexed(gone.content, 4), [facts[2].id])]) == (1, 1)
    assert await store.reflection.last_reflection_at("ann") == NOW + timedelta(hours=1)
    assert await store.memories.soft_delete(gone.id, NOW + timedelta(hours=1))
    assert await store.reflection.last_reflection_at("ann") == NOW
    left = await store.reflection.pending("ann", KINDS, NOW, NOW, 10)
    # Consolidated facts wait no more; the reflection waits for the level above.
    assert [p.id for p in left] == [facts[2].id, reflection.id]


async def test_a_deleted_reflection_hands_back_what_no_current_reflection_summarises(
    store: GraphStore,
) -> None:
    await add_user(store, "ann")
    f1, f2, f3 = [
        await add_memory(store, memory("ann", f"Ann fact {i}", at=T0 + timedelta(minutes=i)))
        for i in range(3)
    ]
    first = memory("ann", "Ann's facts", kind=MemoryKind.REFLECTION, at=NOW)
    await store.reflection.write([(first, indexed(first.content, 1), [f1.id, f2.id])])
    later = NOW + timedelta(hours=1)
    above = memory("ann", "Ann, above", kind=MemoryKind.REFLECTION, at=later)
    assert await store.reflection.write([(above, indexed("x", 2), [first.id, f3.id])]) == (1, 2)

    async def pending() -> set[str]:
        at = later + timedelta(days=1)
        return {p.id for p in await store.reflection.pending("ann", KINDS, at, at, 20)}

    assert await pending() == {above.id}
    # Soft-deleting the higher one hands back what it summarised, not deeper.
    assert await store.memories.soft_delete(above.id, later)
    assert await pending() == {first.id, f3.id}
    # A corrected version of the first summarises its facts too; the version
    # it replaced, no longer current, keeps none of them once the new one goes.
    corrected = memory("ann", "Ann's facts, corrected", kind=MemoryKind.REFLECTION, at=later)
    assert await store.memories.supersede(
        first, corrected, indexed(corrected.content, 3), Sources(), later, []
    )
    assert await pending() == {corrected.id, f3.id}
    await store.memory_ops.apply(MemoryOpsPlan(hard_deletes=[corrected.id]), later)
    assert await pending() == {f1.id, f2.id, f3.id}


async def test_a_user_whose_pending_facts_have_all_ended_is_not_due(store: GraphStore) -> None:
    # A run counts only current facts, so the sweep must too: else it queues a
    # run that makes nothing, every sweep, for good.
    await add_user(store, "ann")
    for i in range(6):
        ended = memory("ann", f"Ann fact {i}", importance=0.9, valid_to=T0 + timedelta(hours=1))
        await add_memory(store, ended)
    assert await store.reflection.pending_total("ann", KINDS, NOW, NOW) == (0, 0.0)
    assert await store.reflection.users_with_pending(KINDS, 2, 1.0, "", 10, NOW) == []
    assert await store.reflection.users_with_pending(KINDS, 2, 1.0, "", 10, T0) == ["ann"]


async def test_a_reflection_names_what_its_facts_name(store: GraphStore) -> None:
    # Its facts are consolidated, out of a default search: the entity walk
    # must reach what they knew through the reflection.
    await add_user(store, "ann")
    facts = [memory("ann", "Ann climbs in the Alps"), memory("ann", "Ann climbs with Tom")]
    names = (("Alps", EntityKind.PLACE), ("Tom", EntityKind.PERSON))
    mentions = [
        Mentions("Memory", f.id, "ann", (EntityMention(n.lower(), n, k),))
        for f, (n, k) in zip(facts, names, strict=True)
    ]
    items = [(f, indexed(f.content, i), Sources()) for i, f in enumerate(facts)]
    await store.memories.add_many(items, mentions)
    reflection = memory("ann", "Ann climbs", kind=MemoryKind.REFLECTION, at=NOW)
    written = [(reflection, indexed(reflection.content, 9), [f.id for f in facts])]
    assert await store.reflection.write(written) == (1, 2)

    seeds = await store.entities.walk("ann", ["alps", "tom"], 10, MemoryFilter(), NOW)

    reached = {row.id for _, _, rows in seeds for row in rows}
    assert reached == {reflection.id}
    alps = await store.entities.get_entities([entity_id("ann", "alps")], None)
    assert alps[entity_id("ann", "alps")].mention_count == 2


async def test_facts_a_deleted_reflection_summarised_do_not_make_their_user_due(
    store: GraphStore,
) -> None:
    # Alone they would make the deleted reflection again, which is refused:
    # a run that makes nothing, every sweep. New facts make the user due, and
    # the old ones join their reflection.
    await add_user(store, "ann")
    old = [
        await add_memory(store, memory("ann", f"Ann fact {i}", importance=0.9)) for i in range(2)
    ]
    made = memory("ann", "Ann's facts", kind=MemoryKind.REFLECTION, at=NOW)
    await store.reflection.write([(made, indexed(made.content, 1), [f.id for f in old])])
    assert await store.memories.soft_delete(made.id, NOW)
    later = NOW + timedelta(hours=1)
    assert await store.reflection.users_with_pending(KINDS, 2, 1.0, "", 10, later) == []
    assert await store.reflection.pending_total("ann", KINDS, later, later) == (0, 0.0)

    new = [
        await add_memory(store, memory("ann", f"Ann news {i}", at=NOW, importance=0.9))
        for i in range(2)
    ]

    assert await store.reflection.users_with_pending(KINDS, 2, 1.0, "", 10, later) == ["ann"]
    waiting = await store.reflection.pending("ann", KINDS, later, later, 10)
    assert {p.id for p in waiting} == {f.id for f in old + new}


async def test_of_two_runs_reflecting_on_a_shared_fact_at_once_one_writes(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path
) -> None:
    await add_user(store, "ann")

    async def doubled(runs: list[GraphConnection], round_: int) -> bool:
        shared, a, b = [
            await add_memory(store, memory("ann", f"Ann fact {round_}.{i}")) for i in range(3)
        ]
        groups = [[a.id, shared.id], [shared.id, b.id]]
        made = [
            memory("ann", f"Ann's summary {round_}.{i}", kind=MemoryKind.REFLECTION, at=NOW)
            for i in range(2)
        ]
        written = await asyncio.gather(
            *(
                run.store.reflection.write([(m, indexed(m.content, i), ids)])
                for i, (run, m, ids) in enumerate(zip(runs, made, groups, strict=True))
            )
        )
        return sum(n for n, _ in written) != 1

    assert await graph_db.failing_rounds(tmp_path, doubled, rounds=8) == []


async def test_a_users_memories_left_without_the_user_never_make_them_due(
    store: GraphStore,
) -> None:
    # Memories a deleted user left behind (a race before a memory's creation
    # needed its user): no reflection can be written under no one.
    await add_user(store, "ann")
    for i in range(3):
        await add_memory(store, memory("ann", f"Ann fact {i}", importance=0.8))

    async def delete_the_user(tx: AsyncManagedTransaction) -> None:
        await fetch(tx, DELETE_USER, {"user_id": "ann"})

    await store.graph.write(delete_the_user)
    count, _ = await store.reflection.pending_total("ann", KINDS, NOW, NOW)
    assert count == 3  # still there, and pending
    assert await store.reflection.users_with_pending(KINDS, 2, 1.0, "", 10, NOW) == []
