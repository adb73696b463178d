"""The graph side of ``hippograph reindex --model``: the turns each vector is made of.

The paging and writing are run end to end by ``tests/cli/test_reindex.py``;
the turn before each turn is read only when a turn-context blend is set
(``HIPPOGRAPH_MEMORIZE__TURN_CONTEXT_WEIGHT`` above 0), which no other test does.
"""

from __future__ import annotations

from graph.store import GraphStore
from hippograph.models import IndexedText, Sources
from hippograph.reembedding import Turn
from tests.support import add_memunit, conversation, memory, unit_vector


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
