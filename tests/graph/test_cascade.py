"""Deletion that follows provenance: the closure read, and the checked delete."""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path

import pytest

from graph.store import GraphConnection, GraphStore
from hippograph.cascade import deletion_report
from hippograph.errors import Conflict, InvalidInput, NotFound
from hippograph.models import Memory, MemoryKind, Message, Sources
from tests.graphs import TestDatabase
from tests.support import (
    add_memory,
    add_memunit,
    conversation,
    derivation_chain,
    indexed,
    memory,
    message,
    race,
)

LIMIT = 100


async def _ids(store: GraphStore, root_id: str, scope: list[str] | None = None) -> set[str]:
    closure = await store.cascade.closure(root_id, scope, LIMIT)
    assert closure is not None
    return set(deletion_report(root_id, closure).deleted_ids)


async def _exists(store: GraphStore, memory_id: str) -> bool:
    return memory_id in await store.memories.get_memories([memory_id])


async def _two_facts_and_a_reflection(
    store: GraphStore,
) -> tuple[list[Message], Memory, Memory, Memory]:
    """Facts a and b, each from one message; a reflection that SUMMARIZES both."""
    _, messages = await conversation(store, "ann", ["one", "two", "three"])
    a = await add_memory(store, memory("ann", "a"), sources=Sources(message_ids=(messages[0].id,)))
    b = await add_memory(store, memory("ann", "b"), sources=Sources(message_ids=(messages[1].id,)))
    reflection = memory("ann", "a and b", kind=MemoryKind.REFLECTION)
    assert await store.reflection.write([(reflection, indexed("a and b", 1), [a.id, b.id])]) == (
        1,
        2,
    )
    return messages, a, b, reflection


async def test_the_closure_reads_every_source_of_what_it_reaches(store: GraphStore) -> None:
    mixed, fact, unit, messages = await derivation_chain(store)
    closure = await store.cascade.closure(messages[0].id, ["ann"], LIMIT)
    assert closure is not None
    assert closure.complete
    assert [r.id for r in closure.roots] == [messages[0].id]
    assert set(closure.derived) == {unit.id, fact.id, mixed.id}
    assert closure.sources == {
        unit.id: tuple(sorted(m.id for m in messages[:2])),
        fact.id: (unit.id,),
        mixed.id: tuple(sorted((fact.id, messages[2].id))),
    }


async def test_a_summarizing_reflection_survives_losing_one_of_its_facts(
    store: GraphStore,
) -> None:
    messages, a, b, reflection = await _two_facts_and_a_reflection(store)
    closure = await store.cascade.closure(messages[0].id, None, LIMIT)
    assert closure is not None
    report = deletion_report(messages[0].id, closure)
    assert report.deleted_ids == {messages[0].id, a.id}
    assert [n.id for n in report.kept] == [reflection.id]

    await store.cascade.delete(messages[0].id, report.deleted_ids, None, LIMIT)
    assert not await _exists(store, a.id)
    assert await _exists(store, b.id)
    assert await _exists(store, reflection.id)
    assert await store.messages.get_messages([messages[0].id]) == {}
    # Deleting the other message now takes the reflection with it.
    assert await _ids(store, messages[1].id) == {messages[1].id, b.id, reflection.id}


async def test_deleting_a_session_takes_its_messages_and_what_derives_only_from_them(
    store: GraphStore,
) -> None:
    session, messages = await conversation(store, "ann", ["one", "two"])
    unit = await add_memunit(store, session, messages)
    fact = await add_memory(store, memory("ann", "f"), sources=Sources(memunit_ids=(unit.id,)))
    _, others = await conversation(store, "bob", ["elsewhere"])
    loose = await add_memory(store, memory("ann", "no sources"))
    expected = {session.id, *(m.id for m in messages), unit.id, fact.id}
    assert await _ids(store, session.id, ["ann"]) == expected

    await store.cascade.delete(session.id, expected, ["ann"], LIMIT)
    assert await store.users.get_sessions([session.id]) == {}
    assert await store.messages.get_messages([m.id for m in messages]) == {}
    assert await store.memunits.get_memunits([unit.id], None) == {}
    assert await _exists(store, loose.id)  # never derived from anything: never reached
    assert await store.messages.get_messages([others[0].id])


async def test_deleting_a_message_leaves_its_session_and_counter(store: GraphStore) -> None:
    session, messages = await conversation(store, "ann", ["one", "two"])
    await store.cascade.delete(messages[1].id, {messages[1].id}, ["ann"], LIMIT)
    assert await store.users.get_sessions([session.id])
    added = await store.messages.append(session.id, [message(session, "three")])
    # The next message gets a new number: sequence numbers are never reused.
    assert added.messages[0].seq == 3


async def test_the_delete_refuses_a_plan_that_changed(store: GraphStore) -> None:
    _, messages = await conversation(store, "ann", ["one"])
    first = await add_memory(
        store, memory("ann", "a"), sources=Sources(message_ids=(messages[0].id,))
    )
    shown = await _ids(store, messages[0].id)
    late = await add_memory(store, memory("ann", "b"), sources=Sources(memory_ids=(first.id,)))
    with pytest.raises(Conflict):
        await store.cascade.delete(messages[0].id, shown, None, LIMIT)
    assert await _exists(store, first.id)
    assert await _exists(store, late.id)
    assert await store.messages.get_messages([messages[0].id])


async def test_another_tenant_cannot_reach_or_delete(store: GraphStore) -> None:
    session, messages = await conversation(store, "ann", ["one"])
    assert await store.cascade.closure(messages[0].id, ["bob"], LIMIT) is None
    assert await store.cascade.closure(session.id, ["bob"], LIMIT) is None
    with pytest.raises(NotFound):
        await store.cascade.delete(messages[0].id, {messages[0].id}, ["bob"], LIMIT)
    assert await store.messages.get_messages([messages[0].id])


async def test_a_closure_past_the_limit_is_incomplete(store: GraphStore) -> None:
    _, messages = await conversation(store, "ann", ["one"])
    source = Sources(message_ids=(messages[0].id,))
    await store.memories.add_many(
        [(memory("ann", f"m{i}"), indexed("m", i), source) for i in range(4)]
    )
    closure = await store.cascade.closure(messages[0].id, None, 3)
    assert closure is not None
    assert not closure.complete
    with pytest.raises(InvalidInput):
        await store.cascade.delete(messages[0].id, {messages[0].id}, None, 3)


async def test_deleting_a_memunit_keeps_its_messages(store: GraphStore) -> None:
    session, messages = await conversation(store, "ann", ["one", "two"])
    unit = await add_memunit(store, session, messages)
    fact = await add_memory(store, memory("ann", "f"), sources=Sources(memunit_ids=(unit.id,)))
    both = await add_memory(
        store,
        memory("ann", "b"),
        sources=Sources(memunit_ids=(unit.id,), message_ids=(messages[0].id,)),
    )
    closure = await store.cascade.closure(unit.id, ["ann"], LIMIT)
    assert closure is not None
    report = deletion_report(unit.id, closure)
    assert report.deleted_ids == {unit.id, fact.id}
    assert [n.id for n in report.kept] == [both.id]
    await store.cascade.delete(unit.id, report.deleted_ids, ["ann"], LIMIT)
    assert await store.memunits.get_memunits([unit.id], None) == {}
    assert len(await store.messages.get_messages([m.id for m in messages])) == 2
    assert await _exists(store, both.id)
    assert not await _exists(store, fact.id)
    # Kept, but not memorized into the same unit again.
    assert await store.ingest.unprocessed(session.id, 10) == []


@pytest.mark.parametrize("root", ["message", "memory"])
async def test_a_memory_derived_while_its_source_is_deleted_never_outlives_it(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path, root: str
) -> None:
    # The deletion reads what derives from its root, then deletes: a memory
    # derived from the root in between, by another process, must either be
    # read (the delete refuses, or takes it too) or fail (its source is gone).
    async def orphaned(connections: list[GraphConnection], round_: int) -> bool:
        deleter, deriver = connections
        user = f"ann{round_}"
        _, messages = await conversation(store, user, ["one"])
        deletion: Awaitable[object]
        if root == "message":
            source = messages[0].id
            sources = Sources(message_ids=(source,))
            deletion = deleter.store.cascade.delete(source, {source}, None, LIMIT)
        else:
            source = (await add_memory(store, memory(user, "a fact"))).id
            sources = Sources(memory_ids=(source,))
            deletion = deleter.store.user_deletion.delete_memories(user, [source], None, LIMIT)
        derived = memory(user, f"derived {round_}")
        await race(
            deletion,
            add_memory(deriver.store, derived, sources=sources),
            refused=(Conflict, NotFound),
        )
        source_left = await store.messages.get_messages([source]) or await _exists(store, source)
        return await _exists(store, derived.id) and not source_left

    assert await graph_db.failing_rounds(tmp_path, orphaned) == []
