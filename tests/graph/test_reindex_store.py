"""The graph side of ``hippograph reindex --model``: the turns each vector is made of.

The paging and writing are run end to end by ``tests/cli/test_reindex.py``;
the turn before each turn is read only when a turn-context blend is set
(``HIPPOGRAPH_MEMORIZE__TURN_CONTEXT_WEIGHT`` above 0), which no other test does.
"""

from __future__ import annotations

from datetime import timedelta

from graph.store import GraphStore
from hippograph.models import IndexedText, Sources
from hippograph.reembedding import Turn
from tests.support import (
    T0,
    add_memunit,
    add_session,
    add_user,
    conversation,
    memory,
    message,
    unit_vector,
)


async def test_a_nodes_turns_come_in_conversation_order_with_the_turn_before_each(
    store: GraphStore,
) -> None:
    session, (first, second, third) = await conversation(store, "ann", ["hi", "tea?", "yes"])
    unit = await add_memunit(store, session, [second, third], seed=1)
    fact = memory("ann", "Ann says yes to tea")
    sources = Sources(message_ids=(third.id, second.id))
    await store.memories.add(fact, IndexedText(unit_vector(2), "ann tea"), sources)

    units = await store.reindex.unit_messages([unit.id])
    memories = await store.reindex.memory_messages([fact.id])
    expected = [("tea?", second.seq), ("yes", third.seq)]
    assert [(t.content, t.seq) for t in units[unit.id]] == expected
    assert [(t.content, t.seq) for t in memories[fact.id]] == expected
    assert await store.reindex.unit_messages([]) == {}

    before = await store.reindex.previous(units[unit.id])
    assert {key: (t.speaker, t.content, t.seq) for key, t in before.items()} == {
        (session.id, second.seq): ("Ann", "hi", first.seq),
        (session.id, third.seq): ("Ann", "tea?", second.seq),
    }
    # The first turn of a session has none before it.
    opening = Turn("Ann", "hi", session.id, first.seq)
    assert await store.reindex.previous([opening]) == {}
    assert await store.reindex.previous([]) == {}


async def test_a_memory_said_in_two_sessions_takes_the_earlier_statement(
    store: GraphStore,
) -> None:
    # Session ids do not run in time (imported ones are hashed, and a user may
    # write to an older session later): the earlier said is the memory's turn.
    await add_user(store, "ann")
    low, high = sorted([await add_session(store, "ann") for _ in range(2)], key=lambda s: s.id)
    later = message(low, "deep blue.", at=T0 + timedelta(days=3))
    earlier = message(high, "deep blue!", at=T0)
    stored = [
        (await store.messages.append(s.id, [m])).messages[0]
        for s, m in ((low, later), (high, earlier))
    ]
    fact = memory("ann", "Ann's favourite colour is deep blue")
    sources = Sources(message_ids=tuple(m.id for m in stored))
    await store.memories.add(fact, IndexedText(unit_vector(3), "blue"), sources)

    turns = (await store.reindex.memory_messages([fact.id]))[fact.id]

    assert [t.content for t in turns] == ["deep blue!", "deep blue."]
