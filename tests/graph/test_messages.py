"""Messages: idempotent appends, sequence numbers, the racing-MERGE difference."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta, timezone

import pytest

from graph.store import GraphStore
from hippograph.errors import Conflict
from hippograph.models import Role
from hippograph.pagination import SeqCursor
from tests.support import T0, add_session, add_user, message


async def test_append_numbers_messages_in_order_and_a_replay_creates_nothing(
    store: GraphStore,
) -> None:
    await add_user(store, "ann")
    session = await add_session(store, "ann")
    batch = [message(session, f"line {i}", at=T0 + timedelta(seconds=i)) for i in range(3)]
    first = await store.messages.append(session.id, batch)
    assert [m.seq for m in first.messages] == [1, 2, 3]
    assert first.created_ids == {m.id for m in batch}
    again = await store.messages.append(session.id, batch)
    assert again.created_ids == frozenset()
    assert [m.seq for m in again.messages] == [1, 2, 3]
    more = [message(session, "line 3"), batch[0]]
    mixed = await store.messages.append(session.id, more)
    assert mixed.created_ids == {more[0].id}
    assert [m.seq for m in mixed.messages] == [4, 1]


async def test_the_same_message_ingested_twice_at_once_exists_once(store: GraphStore) -> None:
    # ArcadeDB lets racing MERGEs of one key both try to create it; the loser
    # gets a ConstraintError that the store retries into a match.
    await add_user(store, "ann")
    session = await add_session(store, "ann")
    for round_ in range(5):
        same = [message(session, f"hello {round_}")]
        results = await asyncio.gather(*(store.messages.append(session.id, same) for _ in range(6)))
        assert sum(len(r.created_ids) for r in results) == 1
        assert all(r.messages[0].id == same[0].id for r in results)
    page = await store.messages.messages_of_sessions([session.id], 100, None, None)
    assert [m.seq for m in page[session.id].items] == [1, 2, 3, 4, 5]


async def test_messages_page_by_sequence_and_respect_scope(store: GraphStore) -> None:
    await add_user(store, "ann")
    session = await add_session(store, "ann")
    await store.messages.append(session.id, [message(session, f"m{i}") for i in range(5)])
    page = await store.messages.messages_of_sessions([session.id], 2, SeqCursor(2), ["ann"])
    assert [m.seq for m in page[session.id].items] == [3, 4]
    assert page[session.id].has_next
    hidden = await store.messages.messages_of_sessions([session.id], 10, None, ["bob"])
    assert hidden[session.id].items == ()


async def test_a_messages_offset_is_kept_beside_its_instant(store: GraphStore) -> None:
    await add_user(store, "ann")
    session = await add_session(store, "ann")
    evening = T0.astimezone(timezone(timedelta(hours=-7)))
    said = replace(message(session, "landed"), ts=evening, utc_offset=-420)
    stored = (await store.messages.append(session.id, [said])).messages[0]
    assert stored.ts == T0  # the graph's instant
    assert stored.ts.utcoffset() == timedelta(0)
    assert stored.utc_offset == -420
    assert stored.local_ts.isoformat() == evening.isoformat()


async def test_a_client_id_reused_for_another_message_is_refused_whole(store: GraphStore) -> None:
    await add_user(store, "ann")
    session = await add_session(store, "ann")
    first = replace(message(session, "A"), client_id="c1")
    await store.messages.append(session.id, [first])
    fresh = message(session, "fresh")
    for other in (
        replace(first, content="B"),
        replace(first, speaker="Bob"),
        replace(first, role=Role.ASSISTANT),
    ):
        with pytest.raises(Conflict, match="c1"):
            await store.messages.append(session.id, [fresh, other])
    page = await store.messages.messages_of_sessions([session.id], 10, None, None)
    assert [(m.content, m.seq) for m in page[session.id].items] == [("A", 1)]  # fresh: not kept
    # The same message again is a replay, whatever its time (a retry without
    # one gets the server's clock anew); its sequence number was not used up.
    again = await store.messages.append(session.id, [replace(first, ts=T0 + timedelta(1)), fresh])
    assert again.created_ids == {fresh.id}
    assert [(m.content, m.seq) for m in again.messages] == [("A", 1), ("fresh", 2)]


async def test_two_messages_sent_at_once_under_one_client_id_one_is_refused(
    store: GraphStore,
) -> None:
    await add_user(store, "ann")
    session = await add_session(store, "ann")
    for round_ in range(3):
        said = replace(message(session, "A"), client_id=f"c{round_}")
        sends = [said, replace(said, content="B")]
        results = await asyncio.gather(
            *(store.messages.append(session.id, [m]) for m in sends), return_exceptions=True
        )
        refused = [r for r in results if isinstance(r, Conflict)]
        [kept] = [r for r in results if not isinstance(r, BaseException)]
        assert len(refused) == 1, results
        [stored] = (await store.messages.get_messages([said.id])).values()
        assert stored.content == kept.messages[0].content
