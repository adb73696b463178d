"""A forget batch in the graph: levels keep or replace vector and tokens; a job's batch counts
what its hard deletes cascaded."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from graph.store import GraphConnection, GraphStore
from hippograph.entities import entity_id, memory_mentions, renaming
from hippograph.errors import Conflict, NotFound
from hippograph.forgetting import Action, Applied, BatchWrite, Decision, Rewrite
from hippograph.jobs import Job
from hippograph.models import IndexedText, MemoryFilter, MemoryLevel, MemoryOpsPlan, Sources
from hippograph.text import search_text
from tests.graphs import TestDatabase
from tests.support import T0, add_user, indexed, memory, queued_job, race, unit_vector

FACT = "Ann keeps bees"
LATER = T0 + timedelta(days=100)


async def test_a_level_that_keeps_the_text_keeps_vector_and_tokens(store: GraphStore) -> None:
    await add_user(store, "ann")
    # Tokens and vector richer than the text alone, as a turn's context makes them.
    record = memory("ann", FACT)
    vector = unit_vector(7)
    await store.memories.add(record, IndexedText(vector, search_text(f"honey {FACT}")), Sources())
    kept = Rewrite(record.id, MemoryLevel.FULL, MemoryLevel.SUMMARY, FACT, FACT, None)
    await store.forgetting.apply(BatchWrite("ann", T0 + timedelta(days=100), rewrites=[kept]))

    after = (await store.memories.get_memories([record.id]))[record.id]
    assert (after.level, after.content, after.original_content) == (
        MemoryLevel.SUMMARY,
        FACT,
        FACT,
    )
    assert [(c.from_level, c.to_level) for c in after.level_history] == [
        (MemoryLevel.FULL, MemoryLevel.SUMMARY)
    ]
    cosine = await store.search.cosines([record.id], vector)
    assert abs(cosine[record.id] - 1.0) < 1e-6
    hits = await store.search.keyword("ann", ["honey"], 5, MemoryFilter(), T0)
    assert [h.id for h in hits] == [record.id]


async def test_a_level_with_new_text_replaces_vector_and_tokens(store: GraphStore) -> None:
    await add_user(store, "ann")
    record = memory("ann", FACT)
    await store.memories.add(record, indexed(FACT, 7), Sources())
    assert len(await store.search.keyword("ann", ["keep"], 5, MemoryFilter(), T0)) == 1
    tag, vector = "tags: bees", unit_vector(8)
    retagged = indexed(tag, 8)
    rewrite = Rewrite(record.id, MemoryLevel.FULL, MemoryLevel.TAG, tag, FACT, retagged)
    await store.forgetting.apply(BatchWrite("ann", T0 + timedelta(days=300), rewrites=[rewrite]))

    after = (await store.memories.get_memories([record.id]))[record.id]
    assert (after.level, after.content, after.original_content) == (MemoryLevel.TAG, tag, FACT)
    cosine = await store.search.cosines([record.id], vector)
    assert abs(cosine[record.id] - 1.0) < 1e-6
    assert await store.search.keyword("ann", ["keep"], 5, MemoryFilter(), T0) == []


async def test_a_jobs_hard_delete_counts_what_it_cascaded_in_the_jobs_progress(
    store: GraphStore,
) -> None:
    # A forget job's batch advances the job's cursor and progress in the same
    # transaction; what a hard delete removed along provenance is added to it.
    await add_user(store, "ann")
    fact = memory("ann", FACT)
    await store.memories.add(fact, indexed(FACT, 7), Sources())
    derived = memory("ann", "Ann's hives are on the roof")
    await store.memories.add(
        derived, IndexedText(unit_vector(8), "hives"), Sources(memory_ids=(fact.id,))
    )
    batch = await _hard_delete_batch(store, [fact.id], progress={"scanned": 1, "cascaded": 2})
    # A dry run's reading: the fact and what derives only from it; with the
    # derived memory gone already (an earlier page's), only the fact.
    assert await store.forgetting.would_delete("ann", [fact.id]) == {fact.id, derived.id}
    assert await store.forgetting.would_delete("ann", [fact.id], {derived.id}) == {fact.id}
    assert await store.forgetting.apply(batch) == Applied(cascaded=1)
    assert await store.memories.get_memories([fact.id, derived.id]) == {}
    after = await _job_of(store, batch)
    assert (after.cursor, dict(after.progress)) == (fact.id, {"scanned": 1, "cascaded": 3})


async def test_a_hard_delete_leaves_a_memory_changed_since_it_was_read(store: GraphStore) -> None:
    await add_user(store, "ann")
    kept, gone = memory("ann", FACT), memory("ann", "Ann once had a red bike")
    for m, seed in ((kept, 7), (gone, 8)):
        await store.memories.add(m, indexed(m.content, seed), Sources())
    decided = {"scanned": 2, "changed": 2, "hard_delete": 2, "unchanged": 0}
    decisions = {m.id: _decision(m.id, Action.HARD_DELETE) for m in (kept, gone)}
    batch = await _hard_delete_batch(
        store, [kept.id, gone.id], progress=decided, decisions=list(decisions.values())
    )
    # Recalled (a search touched it) after the run read it, before its batch.
    assert await store.search.touch([kept.id], T0 + timedelta(days=1))
    assert await store.forgetting.apply(batch) == Applied(kept=(decisions[kept.id],))

    assert set(await store.memories.get_memories([kept.id, gone.id])) == {kept.id}
    # The job's progress counts the one kept as unchanged, not as deleted.
    after = await _job_of(store, batch)
    assert dict(after.progress) == {
        "scanned": 2,
        "changed": 1,
        "hard_delete": 1,
        "unchanged": 1,
        "cascaded": 0,
    }


async def _hard_delete_batch(
    store: GraphStore,
    memory_ids: list[str],
    progress: dict[str, int],
    decisions: Sequence[Decision] = (),
) -> BatchWrite:
    """A batch of a started forget job that hard-deletes ann's ``memory_ids`` as it
    reads them now."""
    read = await store.forgetting.candidates("ann", True, memory_ids)
    job = await queued_job(store)
    assert await store.jobs.start(job.id, T0, T0 - timedelta(minutes=10)) is not None
    return BatchWrite(
        "ann",
        T0 + timedelta(days=400),
        hard_deletes=read,
        job_id=job.id,
        cursor=max(memory_ids),
        progress=progress,
        decisions=decisions,
    )


async def _job_of(store: GraphStore, batch: BatchWrite) -> Job:
    """The job ``batch`` is a page of, as it is now."""
    assert batch.job_id is not None
    return (await store.jobs.get_jobs([batch.job_id]))[batch.job_id]


def _decision(
    memory_id: str,
    action: Action,
    from_level: MemoryLevel = MemoryLevel.FULL,
    to_level: MemoryLevel = MemoryLevel.FULL,
) -> Decision:
    return Decision(memory_id, action, 0.1, from_level, to_level)


async def test_a_batch_reports_the_decisions_it_left_undone(store: GraphStore) -> None:
    await add_user(store, "ann")
    faded, deleted = memory("ann", FACT), memory("ann", "Ann once had a red bike")
    for m, seed in ((faded, 7), (deleted, 8)):
        await store.memories.add(m, indexed(m.content, seed), Sources())
    fuzz = Rewrite(faded.id, MemoryLevel.FULL, MemoryLevel.SUMMARY, FACT, FACT, None)
    decisions = [
        _decision(faded.id, Action.FUZZ, MemoryLevel.FULL, MemoryLevel.SUMMARY),
        _decision(deleted.id, Action.SOFT_DELETE),
    ]
    batch = BatchWrite("ann", T0, rewrites=[fuzz], soft_deletes=[deleted.id], decisions=decisions)
    assert await store.forgetting.apply(batch) == Applied()
    # The same batch again: the memory is at SUMMARY now and the other is
    # deleted, so neither decision holds and both are reported kept.
    assert await store.forgetting.apply(batch) == Applied(kept=tuple(decisions))


async def test_a_rewritten_text_mentions_what_it_names_and_a_restored_one_again(
    store: GraphStore,
) -> None:
    await add_user(store, "ann")
    said = "Ann moved to Boston with Melanie"
    record = memory("ann", said)
    mentions = memory_mentions(record, "", ("Ann",))
    await store.memories.add(record, indexed(said, 7), Sources(), [mentions])
    assert await _names(store) == {"ann", "boston", "melanie", "moved"}

    fuzzed = "Ann moved with Melanie"
    named, unnamed = renaming(said, fuzzed, said, record.created_at, ("Ann",))
    fuzz = Rewrite(
        record.id, MemoryLevel.FULL, MemoryLevel.SUMMARY, fuzzed, said, indexed(fuzzed, 8)
    )
    fuzz = replace(fuzz, named=named, unnamed=unnamed)
    await store.forgetting.apply(BatchWrite("ann", T0 + timedelta(days=100), rewrites=[fuzz]))
    # Boston was named only here: the entity goes with its last mention.
    assert await _names(store) == {"ann", "melanie", "moved"}
    gone = await store.entities.mentioned_in(entity_id("ann", "boston"), 5, None)
    assert gone.items == ()

    named, unnamed = renaming(fuzzed, said, said, record.created_at, ("Ann",))
    back = Rewrite(record.id, MemoryLevel.SUMMARY, MemoryLevel.FULL, said, said, indexed(said, 7))
    back = replace(back, named=named, unnamed=unnamed)
    await store.forgetting.apply(BatchWrite("ann", T0 + timedelta(days=101), rewrites=[back]))
    assert await _names(store) == {"ann", "boston", "melanie", "moved"}
    page = await store.entities.mentioned_in(entity_id("ann", "boston"), 5, None)
    assert [m.id for m in page.items] == [record.id]
    # Each entity once: the restore linked only what the fuzzed text had dropped.
    counts = await store.entities.entities("ann", 10, None)
    assert {e.norm: e.mention_count for e in counts.items} == {
        "ann": 1,
        "boston": 1,
        "melanie": 1,
        "moved": 1,
    }


async def _names(store: GraphStore) -> set[str]:
    page = await store.entities.entities("ann", 10, None)
    return {e.norm for e in page.items}


async def test_of_two_runners_applying_one_batch_at_once_one_applies_it(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path
) -> None:
    # A job's batch carries the cursor it expects: a second runner of the
    # same page must find the cursor moved, even when both check at once.
    await add_user(store, "ann")

    async def twice(runners: list[GraphConnection], round_: int) -> bool:
        fact = memory("ann", f"{FACT} {round_}")
        await store.memories.add(fact, indexed(fact.content, 7), Sources())
        job = await queued_job(store, T0 + timedelta(seconds=round_))
        assert await store.jobs.start(job.id, T0, T0 - timedelta(minutes=10)) is not None
        fuzz = Rewrite(fact.id, MemoryLevel.FULL, MemoryLevel.SUMMARY, FACT, fact.content, None)
        batch = BatchWrite("ann", T0, rewrites=[fuzz], job_id=job.id, cursor=fact.id, progress={})

        async def apply(runner: GraphConnection) -> bool:
            try:
                await runner.store.forgetting.apply(batch)
            except Conflict:
                return False
            return True

        return all(await asyncio.gather(*(apply(r) for r in runners)))

    assert await graph_db.failing_rounds(tmp_path, twice, rounds=8) == []


async def test_a_memory_boosted_while_a_hard_delete_runs_is_kept(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path
) -> None:
    # The run deletes only memories still as it read them: a boost committed
    # between that check and the delete (another process) must keep it.
    await add_user(store, "ann")

    async def lost(connections: list[GraphConnection], round_: int) -> bool:
        runner, booster = connections
        m = memory("ann", f"Ann once had a red bike {round_}")
        await store.memories.add(m, indexed(m.content, round_), Sources())
        batch = await _hard_delete_batch(
            store,
            [m.id],
            progress={"scanned": 1, "changed": 1, "hard_delete": 1, "unchanged": 0},
            decisions=[_decision(m.id, Action.HARD_DELETE)],
        )
        boost = MemoryOpsPlan(boosts=[m.id], boost=0.3)
        _, boosted = await race(
            runner.store.forgetting.apply(batch),
            booster.store.memory_ops.apply(boost, T0 + timedelta(days=1)),
            refused=(NotFound,),
        )
        gone = not await store.memories.get_memories([m.id])
        return not isinstance(boosted, BaseException) and gone

    assert await graph_db.failing_rounds(tmp_path, lost) == []


@pytest.mark.parametrize("action", [Action.FUZZ, Action.SOFT_DELETE])
async def test_of_two_runs_changing_one_memory_at_once_one_changes_it(
    store: GraphStore, graph_db: TestDatabase, tmp_path: Path, action: Action
) -> None:
    # Each run changes a memory only as it read it: two runs (two workers'
    # forget jobs) that both read it full and undeleted would both change it,
    # the history would record a fading twice, and both would count it done.
    await add_user(store, "ann")

    async def doubled(runners: list[GraphConnection], round_: int) -> tuple[int, int] | None:
        m = memory("ann", f"{FACT} {round_}")
        await store.memories.add(m, indexed(m.content, round_), Sources())
        decision = _decision(m.id, action)
        if action is Action.FUZZ:
            fade = Rewrite(m.id, MemoryLevel.FULL, MemoryLevel.SUMMARY, m.content, m.content, None)
            batch = BatchWrite("ann", LATER, rewrites=[fade], decisions=[decision])
        else:
            batch = BatchWrite("ann", LATER, soft_deletes=[m.id], decisions=[decision])
        applied = await asyncio.gather(*(r.store.forgetting.apply(batch) for r in runners))
        after = (await store.memories.get_memories([m.id]))[m.id]
        done = [a for a in applied if not a.kept]
        if len(done) != 1 or len(after.level_history) > 1:
            return len(done), len(after.level_history)
        return None

    assert await graph_db.failing_rounds(tmp_path, doubled) == []
