"""Reflection's store: the facts waiting for one, who is due, and a reflection written once."""

from __future__ import annotations

from datetime import timedelta

from graph.store import GraphStore
from hippograph.models import MemoryKind
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
    due = await store.reflection.users_with_pending(KINDS, 2, 1.0, "", 10)
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
    left = await store.reflection.pending("ann", KINDS, NOW, NOW, 10)
    # Consolidated facts wait no more; the reflection waits for the level above.
    assert [p.id for p in left] == [facts[2].id, reflection.id]
