"""`hippograph import`'s work, in-process on the shared server: files in, memories out, once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hippograph.clock import utc_now
from hippograph.errors import InvalidInput
from hippograph.importers.conversations import named_user, read_conversations
from hippograph.importers.ingest import ImportReport, import_conversations, import_session_id
from hippograph.models import MemoryFilter, MemoryKind
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from jobs.inprocess import InProcessQueue
from tests.cli.conftest import TALK, write_jsonl, write_locomo


async def _import(runtime: Runtime, path: Path, chunk_size: int = 4) -> tuple[ImportReport, int]:
    seen: list[int] = []
    report = await import_conversations(
        runtime.services,
        runtime.connection.store.users,
        read_conversations(path),
        chunk_size=chunk_size,
        clock=utc_now,
        progress=seen.append,
    )
    return report, sum(seen)


async def _stored(runtime: Runtime, user_id: str) -> tuple[int, int]:
    store = runtime.connection.store
    return await store.search.count_units(user_id), await store.memories.count(user_id)


async def test_a_jsonl_file_is_imported_once(runtime: Runtime, tmp_path: Path) -> None:
    # Alice exists already: she keeps her name, and gets the imported sessions.
    await runtime.services.users.create_user(SETTINGS_ADMIN, "alice", "Alice M.")
    dated: dict[str, Any] = {
        "user_id": "alice",
        "session_title": "trip",
        "messages": [
            {"speaker": s, "content": c, "ts": f"2024-05-01T10:0{i}:00+02:00"}
            for i, (s, c) in enumerate(TALK)
        ],
    }
    # No times: the messages are stamped at import, and positions identify them.
    undated = {
        "user_id": "bob",
        "user_name": "Bob",
        "conversation_id": "bob-1",
        "messages": [{"speaker": "Bob", "content": c} for _, c in TALK],
    }
    path = write_jsonl(tmp_path / "chats.jsonl", [dated, undated])

    first, progressed = await _import(runtime, path)
    queue = runtime.queue
    assert isinstance(queue, InProcessQueue)
    await queue.drain()  # the reflect runs memorize queued
    assert progressed == 12
    assert (first.conversations, first.sessions, first.sessions_created) == (2, 2, 2)
    assert first.users_created == 1
    assert (first.messages_new, first.messages_existing) == (12, 0)
    assert first.memunits >= 2
    assert first.memories >= 6
    alice = await _stored(runtime, "alice")
    bob = await _stored(runtime, "bob")
    assert alice[0] + bob[0] == first.memunits
    # Reflections, when a user's facts were enough for one, come on top.
    assert alice[1] + bob[1] >= first.memories
    user = await runtime.services.users.get_user(SETTINGS_ADMIN, "alice")
    assert user is not None
    assert user.name == "Alice M."
    session_id = import_session_id("alice", "chats.jsonl:1")
    sessions = await runtime.services.users.get_sessions(SETTINGS_ADMIN, [session_id])
    assert sessions[session_id].title == "trip"
    pages = await runtime.services.messages.messages_of_sessions(
        SETTINGS_ADMIN, [session_id], 50, None
    )
    assert [m.content for m in pages[session_id].items] == [c for _, c in TALK]

    again, _ = await _import(runtime, path)
    await queue.drain()
    assert (again.messages_new, again.messages_existing) == (0, 12)
    assert (again.sessions_created, again.users_created) == (0, 0)
    assert (again.memunits, again.memories) == (0, 0)
    assert await _stored(runtime, "alice") == alice
    assert await _stored(runtime, "bob") == bob
    assert "12 messages (0 new, 12 existing)" in again.summary(2.0)


async def test_a_locomo_file_is_imported_once_each_speaker_under_their_user(
    runtime: Runtime, tmp_path: Path
) -> None:
    path = write_locomo(tmp_path / "locomo.json")
    first, progressed = await _import(runtime, path, chunk_size=500)
    queue = runtime.queue
    assert isinstance(queue, InProcessQueue)
    await queue.drain()  # the reflect runs memorize queued
    assert progressed == 7
    assert (first.conversations, first.sessions, first.users_created) == (1, 2, 2)
    assert (first.messages_new, first.messages_existing) == (7, 0)
    assert first.memunits >= 2
    assert first.memories >= 2
    caroline = await _stored(runtime, "conv-1-caroline")
    melanie = await _stored(runtime, "conv-1-melanie")
    assert caroline[1] > 0
    assert melanie[1] > 0
    for user_id, name in (("conv-1-caroline", "Caroline"), ("conv-1-melanie", "Melanie")):
        user = await runtime.services.users.get_user(SETTINGS_ADMIN, user_id)
        assert user is not None
        assert user.name == name
    assert await runtime.services.users.get_user(SETTINGS_ADMIN, "conv-1") is None
    # What Melanie said is hers: no statement of Caroline's holds her painting or her
    # race (the episodes of their talks are both of theirs).
    own = MemoryFilter(
        kinds=(MemoryKind.EVENT, MemoryKind.SEMANTIC, MemoryKind.PROFILE),
        include_consolidated=True,
    )
    page = await runtime.services.memories.list_memories(
        SETTINGS_ADMIN, "conv-1-caroline", own, 100, None
    )
    texts = " ".join(m.content for m in page.items)
    assert "sunrise" not in texts, texts
    assert "charity race" not in texts, texts
    assert "support group" in texts
    page = await runtime.services.memories.list_memories(
        SETTINGS_ADMIN, "conv-1-melanie", own, 100, None
    )
    texts = " ".join(m.content for m in page.items)
    assert "sunrise" in texts, texts
    assert "support group" not in texts, texts
    session_id = import_session_id("conv-1-caroline", "locomo:session_2")
    pages = await runtime.services.messages.messages_of_sessions(
        SETTINGS_ADMIN, [session_id], 50, None
    )
    # Client ids are the turns' dia_ids, as in `hippograph bench locomo`.
    assert [m.client_id for m in pages[session_id].items] == ["D2:1", "D2:2", "D2:3"]

    again, _ = await _import(runtime, path, chunk_size=500)
    await queue.drain()
    assert (again.messages_new, again.memunits, again.memories) == (0, 0, 0)
    assert (again.sessions_created, again.users_created) == (0, 0)
    assert await _stored(runtime, "conv-1-caroline") == caroline
    assert await _stored(runtime, "conv-1-melanie") == melanie


async def test_the_import_names_its_user_and_lists_what_it_made(
    runtime: Runtime, tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "notes.jsonl",
        [
            {
                "user_id": "u1",
                "session_title": "trip",
                "messages": [{"speaker": s, "content": c} for s, c in TALK],
            }
        ],
    )
    conversations = named_user(read_conversations(path), "alice", "Alice", path.name)
    report = await import_conversations(
        runtime.services,
        runtime.connection.store.users,
        conversations,
        chunk_size=500,
        clock=utc_now,
    )
    queue = runtime.queue
    assert isinstance(queue, InProcessQueue)
    await queue.drain()  # the reflect runs memorize queued finish before the runtime stops
    user = await runtime.services.users.get_user(SETTINGS_ADMIN, "alice")
    assert user is not None
    assert user.name == "Alice"
    assert await runtime.services.users.get_user(SETTINGS_ADMIN, "u1") is None
    listing = report.listing().splitlines()
    assert listing[0] == "user alice (Alice)"
    session_id = import_session_id("alice", "notes.jsonl:1")
    assert f"  session {session_id}  trip  6 messages" in listing
    # Two conversations cannot share one named user: their sessions would merge.
    two = write_jsonl(
        tmp_path / "two.jsonl",
        [{"user_id": u, "messages": [{"speaker": "A", "content": "hi there"}]} for u in "ab"],
    )
    with pytest.raises(InvalidInput, match="2 conversations"):
        named_user(read_conversations(two), "x", None, two.name)


async def test_a_message_over_a_services_limit_refuses_the_file_before_anything_is_written(
    runtime: Runtime, tmp_path: Path
) -> None:
    # The reader checks the file's shape; a limit of the services' (a
    # message's length, a setting) is checked before the first write too, so
    # a refused file leaves no user, session or message behind.
    good = {"user_id": "alice", "messages": [{"speaker": s, "content": c} for s, c in TALK]}
    talk = [{"speaker": "Bob", "content": f"line {i}"} for i in range(6)]
    talk[5] = {"speaker": "Bob", "content": "x" * 9000}
    long = {"user_id": "bob", "messages": talk}
    path = write_jsonl(tmp_path / "chats.jsonl", [good, long])
    with pytest.raises(InvalidInput) as refused:
        await _import(runtime, path)  # in chunks of 4: the index is the line's own
    assert refused.value.message == (
        "chats.jsonl line 2: messages[5].content is 9000 characters long; the limit is 8000"
    )
    for user_id in ("alice", "bob"):
        assert await runtime.services.users.get_user(SETTINGS_ADMIN, user_id) is None

    talk[5] = {"speaker": "Bob", "content": "bye"}
    report, _ = await _import(runtime, write_jsonl(path, [good, long]))
    assert (report.conversations, report.messages_new) == (2, len(TALK) + 6)
