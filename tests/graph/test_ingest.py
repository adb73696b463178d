"""Memorize's reads and its one write: what is left to do, the profile on record, units and
memories written once with their sources, a new profile value superseding the old."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from graph.store import GraphConnection, GraphStore
from hippograph.ids import IdKind, new_id
from hippograph.models import (
    IndexedText,
    IngestBatch,
    IngestCounts,
    Memory,
    MemoryFilter,
    MemoryKind,
    MemUnit,
    Sources,
)
from hippograph.versions import returned_id
from tests.graphs import TestDatabase
from tests.support import T0, add_user, conversation, indexed, memory, race


def _unit(session_id: str, at_minute: int) -> MemUnit:
    at = T0 + timedelta(minutes=at_minute)
    return MemUnit(
        id=new_id(IdKind.MEMUNIT, at),
        user_ids=("ann",),
        session_id=session_id,
        summary="Ann: I moved to Lyon",
        narrative="On 1 January, Ann talked about Lyon.",
        subject="lyon",
        ts=at,
    )


async def test_a_units_write_leaves_the_rest_to_do_and_a_replay_writes_nothing(
    store: GraphStore,
) -> None:
    session, said = await conversation(store, "ann", ["I moved to Lyon", "for work", "bye"])
    assert [m.id for m in await store.ingest.unprocessed(session.id, 10)] == [m.id for m in said]
    before = await store.ingest.previous(session.id, said[2].seq)
    assert before is not None
    assert before.id == said[1].id
    assert await store.ingest.previous(session.id, said[0].seq) is None

    unit = _unit(session.id, 0)
    city = memory("ann", "Ann's city: Lyon", kind=MemoryKind.PROFILE, topic="city")
    batch = IngestBatch(
        units=[(unit, indexed(unit.summary, 1), [said[0].id, said[1].id])],
        memories=[
            (
                city,
                indexed(city.content, 2),
                Sources(message_ids=(said[0].id,), memunit_ids=(unit.id,)),
            )
        ],
    )
    counts = await store.ingest.write(batch)
    assert (counts.memunits, counts.memories, counts.superseded) == (1, 1, 0)
    assert [m.id for m in await store.ingest.unprocessed(session.id, 10)] == [said[2].id]
    assert await store.ingest.write(batch) == type(counts)(0, 0, 0)  # a replay
    assert await store.ingest.profiles(["ann", "bob"], 10) == {"ann": {"city": "Lyon"}}
    derived = (await store.memories.derived_from([city.id], None))[city.id]
    assert {n.id for n in derived} == {said[0].id, unit.id}


async def test_a_second_run_over_messages_a_unit_holds_leaves_them_to_it(
    store: GraphStore,
) -> None:
    # Two runs read the session's unprocessed messages at once and cut them
    # differently: the first to write keeps its units, the second's overlapping
    # unit (and what it drew from it) is left out, and the rest of it is written.
    session, said = await conversation(store, "ann", ["one", "two", "three", "four"])
    first = _unit(session.id, 0)
    done = IngestBatch(units=[(first, indexed("a", 1), [m.id for m in said[:3]])], memories=[])
    assert (await store.ingest.write(done)).memunits == 1

    overlapping, fresh = _unit(session.id, 1), _unit(session.id, 2)
    drawn = memory("ann", "Ann counted to two")
    batch = IngestBatch(
        units=[
            (overlapping, indexed("b", 2), [said[1].id, said[2].id]),
            (fresh, indexed("c", 3), [said[3].id]),
        ],
        memories=[(drawn, indexed(drawn.content, 4), Sources(memunit_ids=(overlapping.id,)))],
    )
    counts = await store.ingest.write(batch)
    assert (counts.memunits, counts.memories) == (1, 0)
    assert await store.ingest.unprocessed(session.id, 10) == []
    assert await store.memories.get_memories([drawn.id]) == {}
    assert set(await store.memunits.get_memunits([overlapping.id, fresh.id], None)) == {fresh.id}


async def test_two_runs_writing_units_of_one_message_at_once_keep_one(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path
) -> None:
    # As above, but the two writes race: neither may find the messages free
    # because the other has not committed yet.
    async def doubled(runs: list[GraphConnection], round_: int) -> bool:
        session, said = await conversation(store, f"ann{round_}", ["one", "two"])
        cuts = [[said[0].id], [said[0].id, said[1].id]]
        batches = [
            IngestBatch(units=[(_unit(session.id, i), indexed("x", i), ids)], memories=[])
            for i, ids in enumerate(cuts)
        ]
        counts = await _write_at_once(runs, batches)
        return sum(c.memunits for c in counts) != 1

    assert await graph_db.failing_rounds(tmp_path, doubled, rounds=6) == []


async def _write_at_once(
    runs: list[GraphConnection], batches: list[IngestBatch]
) -> list[IngestCounts]:
    """Each run writes its batch, all at once (as workers' memorize runs race)."""
    return await asyncio.gather(
        *(run.store.ingest.write(b) for run, b in zip(runs, batches, strict=True))
    )


async def test_a_new_profile_value_supersedes_the_old_and_a_restatement_adds_a_source(
    store: GraphStore,
) -> None:
    _, said = await conversation(store, "ann", ["I live in Lyon", "I live in Nice now"])
    old = memory("ann", "Ann's city: Lyon", kind=MemoryKind.PROFILE, topic="city")
    await store.ingest.write(
        IngestBatch(
            units=(), memories=[(old, indexed(old.content, 1), Sources(message_ids=(said[0].id,)))]
        )
    )
    new = memory(
        "ann", "Ann's city: Nice", kind=MemoryKind.PROFILE, topic="city", at=T0 + timedelta(days=1)
    )
    batch = IngestBatch(
        units=(),
        memories=[
            (new, indexed(new.content, 2), Sources(message_ids=(said[1].id,))),
            # the old value said again: one more source, not a new memory
            (old, indexed(old.content, 1), Sources(message_ids=(said[1].id,))),
        ],
    )
    counts = await store.ingest.write(batch)
    assert (counts.memories, counts.superseded) == (1, 1)
    found = await store.memories.get_memories([old.id, new.id])
    assert found[old.id].valid_to == new.created_at
    assert found[new.id].valid_to is None
    assert await store.ingest.profiles(["ann"], 10) == {"ann": {"city": "Nice"}}
    sources = (await store.memories.derived_from([old.id], None))[old.id]
    assert {n.id for n in sources} == {said[0].id, said[1].id}


def _city(content: str, day: int, seq: int | None = None) -> Memory:
    """Ann's city value ``content``, said on ``day`` (at ``seq`` in its session)."""
    return memory(
        "ann",
        f"Ann's city: {content}",
        kind=MemoryKind.PROFILE,
        topic="city",
        at=T0 + timedelta(days=day),
        seq=seq,
    )


async def _profile_values(store: GraphStore, *values: tuple[str, int, int | None]) -> list[str]:
    """Write city values (content, day, seq) in one batch each, in the order given."""
    ids = []
    for content, day, seq in values:
        value = _city(content, day, seq)
        await store.ingest.write(
            IngestBatch(units=(), memories=[(value, indexed(value.content, day), Sources())])
        )
        ids.append(value.id)
    return ids


async def test_an_older_value_arriving_late_is_history_at_once(store: GraphStore) -> None:
    await add_user(store, "ann")
    porto, lisbon = await _profile_values(store, ("Porto", 150, None), ("Lisbon", 10, None))
    found = await store.memories.get_memories([porto, lisbon])
    assert found[porto].valid_to is None
    assert found[lisbon].valid_to == found[porto].created_at
    assert await store.ingest.profiles(["ann"], 10) == {"ann": {"city": "Porto"}}


async def test_two_values_of_one_instant_leave_the_later_said_current(store: GraphStore) -> None:
    await add_user(store, "ann")
    first = memory("ann", "Ann's city: Lisbon", kind=MemoryKind.PROFILE, topic="city", seq=0)
    then = memory("ann", "Ann's city: Porto", kind=MemoryKind.PROFILE, topic="city", seq=12)
    batch = IngestBatch(
        units=(),
        memories=[(m, indexed(m.content, i), Sources()) for i, m in enumerate((first, then))],
    )
    assert (await store.ingest.write(batch)).superseded == 1
    found = await store.memories.get_memories([first.id, then.id])
    assert (found[first.id].valid_to, found[then.id].valid_to) == (T0, None)
    assert await store.ingest.profiles(["ann"], 10) == {"ann": {"city": "Porto"}}


async def test_a_value_said_again_after_another_is_current_again(store: GraphStore) -> None:
    _, said = await conversation(store, "ann", ["Lisbon", "Porto", "Lisbon again", "still Lisbon"])

    def city(content: str, day: int, message: int) -> tuple[Memory, IndexedText, Sources]:
        value = _city(content, day)
        return value, indexed(value.content, day), Sources(message_ids=(said[message].id,))

    lisbon, porto, back = city("Lisbon", 1, 0), city("Porto", 5, 1), city("Lisbon", 9, 2)
    back = (replace(back[0], id=lisbon[0].id), back[1], back[2])  # one value, one id
    for value in (lisbon, porto):
        await store.ingest.write(IngestBatch(units=(), memories=[value]))

    counts = await store.ingest.write(IngestBatch(units=(), memories=[back]))

    returned = returned_id(lisbon[0].id, back[0].created_at)
    assert [m.id for m in counts.created] == [returned]
    assert counts.superseded == 1
    found = await store.memories.get_memories([lisbon[0].id, porto[0].id, returned])
    assert found[lisbon[0].id].valid_to == porto[0].created_at  # its period stays
    assert found[porto[0].id].valid_to == back[0].created_at
    assert found[returned].valid_to is None
    assert await store.ingest.profiles(["ann"], 10) == {"ann": {"city": "Lisbon"}}
    # A replay writes nothing; the value said once more is one more source.
    assert await store.ingest.write(IngestBatch(units=(), memories=[back])) == type(counts)(0, 0, 0)
    later = (
        replace(back[0], created_at=T0 + timedelta(days=12)),
        back[1],
        Sources(message_ids=(said[3].id,)),
    )
    assert (await store.ingest.write(IngestBatch(units=(), memories=[later]))).memories == 0
    sources = (await store.memories.derived_from([returned], None))[returned]
    assert {n.id for n in sources} == {said[2].id, said[3].id}


async def test_two_runs_writing_one_attribute_at_once_leave_one_value_current(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path
) -> None:
    async def doubled(runs: list[GraphConnection], round_: int) -> bool:
        user = f"ann{round_}"
        await add_user(store, user)
        values = [
            memory(user, f"Ann's city: {city}", kind=MemoryKind.PROFILE, topic="city", at=at)
            for city, at in (("Lyon", T0), ("Nice", T0 + timedelta(days=1)))
        ]
        batches = [
            IngestBatch(units=(), memories=[(v, indexed(v.content, i), Sources())])
            for i, v in enumerate(values)
        ]
        await _write_at_once(runs, batches)
        found = await store.memories.get_memories([v.id for v in values])
        return await store.ingest.profiles([user], 10) != {user: {"city": "Nice"}} or [
            found[v.id].valid_to is None for v in values
        ] != [False, True]

    assert await graph_db.failing_rounds(tmp_path, doubled, rounds=6) == []


async def test_a_new_profile_value_and_a_correction_of_the_old_at_once_leave_one_current(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path
) -> None:
    # updateMemory corrects Ann's city while memorize writes a new one (two
    # processes): memorize must see the correction and supersede it, or the
    # correction must find its version superseded; never both current.
    async def doubled(connections: list[GraphConnection], round_: int) -> list[str] | None:
        editor, run = connections
        user = f"ann{round_}"
        await add_user(store, user)
        old = memory(user, "Ann's city: Lyon", kind=MemoryKind.PROFILE, topic="city", at=T0)
        batch = IngestBatch(units=(), memories=[(old, indexed(old.content, 1), Sources())])
        await store.ingest.write(batch)
        later = T0 + timedelta(days=1)
        fixed = replace(old, id=new_id(IdKind.MEMORY, later), content="Ann's city: Lyon!")
        new = memory(user, "Ann's city: Nice", kind=MemoryKind.PROFILE, topic="city", at=later)
        arriving = IngestBatch(units=(), memories=[(new, indexed(new.content, 2), Sources())])
        await race(
            editor.store.memories.supersede(old, fixed, indexed("x", 3), Sources(), later),
            run.store.ingest.write(arriving),
        )
        current = await store.memories.list_memories(user, MemoryFilter(), 10, None, later)
        return None if len(current.items) == 1 else sorted(m.content for m in current.items)

    assert await graph_db.failing_rounds(tmp_path, doubled) == []
