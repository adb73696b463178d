"""Entity nodes and MENTIONS edges: written with memories, merged, pruned, walked, scoped."""

from __future__ import annotations

from pathlib import Path

from graph.store import GraphConnection, GraphStore
from hippograph.cascade import deletion_report
from hippograph.entities import entity_id, memory_mentions, message_mentions
from hippograph.ids import IdKind, new_id
from hippograph.models import (
    EntityKind,
    EntityMention,
    IngestBatch,
    Memory,
    MemoryFilter,
    MemUnit,
    Mentions,
    Sources,
)
from tests.graphs import TestDatabase
from tests.support import T0, add_user, conversation, indexed, memory, race

LIMIT = 100


def _mentions(record: Memory, *names: str) -> Mentions:
    return Mentions(
        label="Memory",
        node_id=record.id,
        user_id=record.user_id,
        entities=tuple(EntityMention(n.lower(), n, EntityKind.THING) for n in names),
    )


async def _store_memories(
    store: GraphStore, user_id: str, named: list[tuple[str, tuple[str, ...]]]
) -> list[Memory]:
    records = [memory(user_id, content) for content, _ in named]
    items = [(r, indexed(r.content, i), Sources()) for i, r in enumerate(records)]
    mentions = [_mentions(r, *names) for r, (_, names) in zip(records, named, strict=True)]
    assert await store.memories.add_many(items, mentions) == len(records)
    return records


async def _norms(store: GraphStore, user_id: str) -> dict[str, int]:
    page = await store.entities.entities(user_id, LIMIT, None)
    return {e.norm: e.mention_count for e in page.items}


async def test_memorize_writes_entities_and_mentions_once_whatever_the_replays(
    store: GraphStore,
) -> None:
    session, messages = await conversation(store, "ann", ["I moved to Boston with Jon."])
    fact = memory("ann", "Ann moved to Boston.")
    mentions = [
        message_mentions(messages[0], ("Jon",)),
        memory_mentions(fact, "Ann"),
    ]
    unit = MemUnit(
        id=new_id(IdKind.MEMUNIT, T0),
        user_ids=("ann",),
        session_id=session.id,
        summary="s",
        narrative="n",
        subject="s",
        ts=T0,
    )
    batch = IngestBatch(
        units=[(unit, indexed("s", 2), [messages[0].id])],
        memories=[(fact, indexed(fact.content, 1), Sources(message_ids=(messages[0].id,)))],
        mentions=mentions,
    )
    await store.ingest.write(batch)
    await store.ingest.write(batch)  # a replay writes nothing new
    found = await _norms(store, "ann")
    # the message: Ann, Boston, Jon (+ keywords); the memory: Ann, Boston
    assert found["boston"] == 2
    assert found["ann"] == 2
    assert found["jon"] == 1
    page = await store.entities.entities("ann", LIMIT, None)
    boston = next(e for e in page.items if e.norm == "boston")
    assert boston.id == entity_id("ann", "boston")
    assert boston.kind is EntityKind.PLACE
    assert boston.name == "Boston"


async def test_entities_merge_per_user_and_never_across_users(store: GraphStore) -> None:
    await conversation(store, "ann", ["x"])
    await conversation(store, "bob", ["y"])
    await _store_memories(store, "ann", [("a", ("Boston",)), ("b", ("Boston", "Jon"))])
    await _store_memories(store, "bob", [("c", ("Boston",))])
    assert await _norms(store, "ann") == {"boston": 2, "jon": 1}
    assert await _norms(store, "bob") == {"boston": 1}
    # another user's entity is not found by id under this user's scope
    other = entity_id("bob", "boston")
    assert await store.entities.get_entities([other], ["ann"]) == {}
    assert set(await store.entities.get_entities([other], ["bob"])) == {other}


async def test_the_walk_reads_each_seed_with_its_degree_and_skips_hubs(store: GraphStore) -> None:
    await conversation(store, "ann", ["x"])
    await conversation(store, "bob", ["y"])
    a, b, c = await _store_memories(
        store,
        "ann",
        [("a", ("Ann", "Pottery")), ("b", ("Ann", "Boston")), ("c", ("Ann", "Boston"))],
    )
    await _store_memories(store, "bob", [("d", ("Pottery",))])
    seeds = await store.entities.walk(
        "ann", ["pottery", "boston", "ann", "nobody"], 2, MemoryFilter(), T0
    )
    found = {entity: (degree, sorted(m.id for m in hits)) for entity, degree, hits in seeds}
    assert found == {
        entity_id("ann", "pottery"): (1, [a.id]),
        entity_id("ann", "boston"): (2, sorted([b.id, c.id])),
        # "ann" is in 3 memories, over the cap of 2: skipped
    }


async def test_the_walk_applies_the_search_filters(store: GraphStore) -> None:
    await conversation(store, "ann", ["x"])
    a, b = await _store_memories(store, "ann", [("a", ("Boston",)), ("b", ("Boston",))])
    assert await store.memories.soft_delete(a.id, T0)
    seeds = await store.entities.walk("ann", ["boston"], 10, MemoryFilter(), T0)
    # the degree is what the filter leaves: the seed weighs as in that world
    assert [(degree, [m.id for m in hits]) for _, degree, hits in seeds] == [(1, [b.id])]


async def test_deleting_a_memory_prunes_the_entities_only_it_mentioned(store: GraphStore) -> None:
    await conversation(store, "ann", ["x"])
    a, _ = await _store_memories(store, "ann", [("a", ("Boston", "Jon")), ("b", ("Boston",))])
    assert await store.memories.hard_delete(a.id, T0)
    assert await _norms(store, "ann") == {"boston": 1}


async def test_a_cascade_from_a_message_prunes_its_entities(store: GraphStore) -> None:
    _, messages = await conversation(store, "ann", ["I met Jon in Boston."])
    fact = memory("ann", "Ann met Jon.")
    await store.memories.add_many(
        [(fact, indexed(fact.content, 1), Sources(message_ids=(messages[0].id,)))],
        [message_mentions(messages[0], ("Jon",)), memory_mentions(fact, "Ann")],
    )
    assert "boston" in await _norms(store, "ann")
    closure = await store.cascade.closure(messages[0].id, ["ann"], LIMIT)
    assert closure is not None
    report = deletion_report(messages[0].id, closure)
    assert fact.id in report.deleted_ids
    await store.cascade.delete(messages[0].id, report.deleted_ids, ["ann"], LIMIT)
    assert await _norms(store, "ann") == {}


async def test_entity_pages_and_mentioned_in(store: GraphStore) -> None:
    await conversation(store, "ann", ["x"])
    records = await _store_memories(store, "ann", [(f"m{i}", ("Boston",)) for i in range(3)])
    first = await store.entities.entities("ann", 1, None)
    assert first.has_next is False
    page = await store.entities.mentioned_in(entity_id("ann", "boston"), 2, None)
    ids = [m.id for m in page.items]
    assert ids == sorted(ids, reverse=True)  # newest first, then by id
    assert len(ids) == 2
    assert page.has_next
    rest = await store.entities.mentioned_in(entity_id("ann", "boston"), 2, (T0, ids[-1]))
    assert not rest.has_next
    assert set(ids) | {m.id for m in rest.items} == {r.id for r in records}


async def test_only_named_entities_seed_the_walk(store: GraphStore) -> None:
    await conversation(store, "ann", ["x"])
    record = memory("ann", "a")
    lower = Mentions(
        label="Memory",
        node_id=record.id,
        user_id="ann",
        entities=(
            EntityMention("pottery", "pottery", EntityKind.THING),  # a keyword phrase
            EntityMention("jon", "Jon", EntityKind.THING),  # a capitalised name
            EntityMention("may 2023", "May 2023", EntityKind.DATE),
        ),
    )
    await store.memories.add_many([(record, indexed("a", 1), Sources())], [lower])
    seeds = await store.entities.walk("ann", ["pottery", "jon", "may 2023"], 10, MemoryFilter(), T0)
    assert {e for e, _, _ in seeds} == {entity_id("ann", "jon"), entity_id("ann", "may 2023")}


async def test_walked_memories_carry_what_ranking_reads(store: GraphStore) -> None:
    # a memory only the walk finds is ranked like any candidate: its position
    # and the period its text tells of come with it
    from datetime import timedelta

    await conversation(store, "ann", ["x"])
    start = T0 - timedelta(days=30)
    record = memory(
        "ann",
        "Ann flew to Boston",
        session_id="ses_walk",
        seq=3,
        about_start=start,
        about_end=start + timedelta(days=1),
    )
    items = [(record, indexed(record.content, 1), Sources())]
    assert await store.memories.add_many(items, [_mentions(record, "Boston")]) == 1
    [(_, _, [hit])] = await store.entities.walk("ann", ["boston"], 10, MemoryFilter(), T0)
    assert (hit.id, hit.session_id, hit.seq) == (record.id, "ses_walk", 3)
    assert hit.about == (start, start + timedelta(days=1))


async def test_a_later_mention_that_reads_an_entity_better_upgrades_it(store: GraphStore) -> None:
    # "Boston is lovely" opens a sentence: a lower-case thing, which never
    # seeds the walk; "moved to Boston" later says it is a place.
    await conversation(store, "ann", ["x"])
    first, later, again = memory("ann", "a"), memory("ann", "b"), memory("ann", "c")

    def mentions(record: Memory, mention: EntityMention) -> Mentions:
        return Mentions(label="Memory", node_id=record.id, user_id="ann", entities=(mention,))

    reads = [
        (first, EntityMention("boston", "boston", EntityKind.THING)),
        (later, EntityMention("boston", "Boston", EntityKind.PLACE)),
        (again, EntityMention("boston", "boston", EntityKind.THING)),  # no step back
    ]
    for i, (record, mention) in enumerate(reads):
        items = [(record, indexed(record.content, i), Sources())]
        await store.memories.add_many(items, [mentions(record, mention)])

    (boston,) = (await store.entities.entities("ann", LIMIT, None)).items
    assert (boston.name, boston.kind) == ("Boston", EntityKind.PLACE)
    seeds = await store.entities.walk("ann", ["boston"], 10, MemoryFilter(), T0)
    assert [(e, n) for e, n, _ in seeds] == [(entity_id("ann", "boston"), 3)]


async def test_an_entity_pruned_while_a_new_memory_names_it_keeps_the_new_mention(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path
) -> None:
    # Deleting the last memory that names Boston prunes the entity: a memory
    # naming Boston written meanwhile, by another process, must keep its
    # mention (of that entity, or of a new one) and never lose it.
    async def lost(connections: list[GraphConnection], round_: int) -> bool:
        deleter, writer = connections
        user = f"ann{round_}"
        await add_user(store, user)
        (old,) = await _store_memories(store, user, [("old", ("Boston",))])
        await race(
            deleter.store.user_deletion.delete_memories(user, [old.id], None, LIMIT),
            _store_memories(writer.store, user, [("new", ("Boston",))]),
        )
        return (await _norms(store, user)).get("boston") != 1

    assert await graph_db.failing_rounds(tmp_path, lost) == []
