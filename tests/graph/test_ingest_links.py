"""Memorize's write links every memory to its sources, or writes nothing."""

from __future__ import annotations

import pytest

from graph.store import GraphStore
from hippograph.errors import NotFound
from hippograph.models import IngestBatch, Sources
from tests.support import add_session, add_user, indexed, memory, message


async def test_a_source_missing_after_the_retries_is_not_found_and_nothing_is_written(
    store: GraphStore,
) -> None:
    await add_user(store, "ann")
    session = await add_session(store, "ann")
    said = message(session, "I moved to Lyon")
    await store.messages.append(session.id, [said])
    kept = memory("ann", "Ann moved to Lyon")
    orphan = memory("ann", "Ann's cat is called Tom")
    batch = IngestBatch(
        units=(),
        memories=(
            (kept, indexed(kept.content, 1), Sources(message_ids=(said.id,))),
            (orphan, indexed(orphan.content, 2), Sources(message_ids=("msg_gone",))),
        ),
    )
    with pytest.raises(NotFound, match="one of 2 message_ids"):
        await store.ingest.write(batch)
    assert await store.memories.get_memories([kept.id, orphan.id]) == {}
    # with every source there, the same batch is written whole
    whole = IngestBatch(units=(), memories=batch.memories[:1])
    counts = await store.ingest.write(whole)
    assert counts.memories == 1
