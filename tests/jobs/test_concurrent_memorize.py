"""People repeat themselves: a fact stated twice is one memory, however memorize is called,
and every statement of it is a source.

Before, the same fact stated in two MemUnits of one memorize run was two
drafts with one id, and the write failed (a ConstraintError retried into a
Conflict, or a link to a MemUnit not found), so the caller got an error for
an ordinary conversation; overlapping calls on one session hit it most.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.models import Memory, MemoryFilter, MemoryKind, Message
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memorize import MemorizeRequest
from hippograph.services.messages import MessageInput
from hippograph.settings import JobSettings, Settings
from tests.graphs import TestDatabase
from tests.jobs.support import CONVERSATION

REPEATED = "My name is Caroline Smith and I live in Boston."


@pytest.fixture
async def runtime(
    tmp_path: Path, graph_db: TestDatabase, embedder: SentenceTransformerEmbedder
) -> AsyncIterator[Runtime]:
    settings = Settings(graph=graph_db.settings(tmp_path), jobs=JobSettings(mode="inprocess"))
    started = await Runtime.start(settings, embedder=embedder, **graph_db.start)
    try:
        await started.services.users.create_user(SETTINGS_ADMIN, "caro", "Caroline")
        yield started
    finally:
        await started.stop()


def lines(rounds: int) -> list[MessageInput]:
    """The conversation ``rounds`` times over (the same words, new messages)."""
    return [
        MessageInput(speaker=speaker, content=content, client_id=f"c{i}")
        for i, (speaker, content) in enumerate(CONVERSATION * rounds)
    ]


async def memorize(runtime: Runtime, session_id: str, messages: list[MessageInput]) -> None:
    request = MemorizeRequest(
        user_ids=("caro",), session_id=session_id, messages=tuple(messages), run_async=False
    )
    await runtime.services.memorize.memorize(SETTINGS_ADMIN, request)


async def said_in(runtime: Runtime, title: str, rounds: int) -> str:
    """A new session of caro's, titled ``title``, memorized with ``lines(rounds)``; its id."""
    session = await runtime.services.users.create_session(SETTINGS_ADMIN, "caro", title)
    await memorize(runtime, session.id, lines(rounds))
    return session.id


async def facts_about_boston(runtime: Runtime) -> list[Memory]:
    page = await runtime.connection.store.memories.list_memories(
        "caro",
        # a reflection the run queued may have consolidated it meanwhile
        MemoryFilter(kinds=(MemoryKind.SEMANTIC,), include_consolidated=True),
        200,
        None,
        datetime.now().astimezone(),
    )
    return [m for m in page.items if "Boston" in m.content]


async def statements(runtime: Runtime, memory_id: str) -> list[Message]:
    """The messages a memory is derived from."""
    derived = await runtime.connection.store.memories.derived_from([memory_id], None)
    return [n for n in derived[memory_id] if isinstance(n, Message)]


async def assert_one_edge_per_source(runtime: Runtime, memory_id: str) -> None:
    """The memory has sources, and one DERIVED_FROM edge goes to each of them."""
    rows = await runtime.connection.store.graph.query(
        "MATCH (m:Memory {id: $id})-[r:DERIVED_FROM]->(x) RETURN x.id AS x, count(r) AS n",
        {"id": memory_id},
    )
    edges = {r["x"]: r["n"] for r in rows}
    assert edges
    assert set(edges.values()) == {1}, edges


async def test_a_fact_stated_in_two_units_of_one_run_is_one_memory_from_both(
    runtime: Runtime,
) -> None:
    session = await said_in(runtime, "chat", 3)
    [fact] = await facts_about_boston(runtime)
    stated = await statements(runtime, fact.id)
    # every message that said it, not only the first
    assert len(stated) == 3
    assert {m.content for m in stated} == {REPEATED}
    assert await runtime.connection.store.ingest.unprocessed(session, 100) == []


async def test_overlapping_memorize_calls_on_one_session_all_succeed(runtime: Runtime) -> None:
    session = await runtime.services.users.create_session(SETTINGS_ADMIN, "caro", "chat")
    said = lines(4)
    for _ in range(3):  # the later rounds replay messages already stored
        calls = (memorize(runtime, session.id, said[part::4]) for part in range(4))
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert [r for r in results if r is not None] == []
    [fact] = await facts_about_boston(runtime)
    # overlapping runs that each link the same statement leave one edge
    await assert_one_edge_per_source(runtime, fact.id)
    assert await runtime.connection.store.ingest.unprocessed(session.id, 100) == []


async def test_a_fact_said_again_in_a_later_run_gains_the_new_statement_as_a_source(
    runtime: Runtime,
) -> None:
    first = await said_in(runtime, "monday", 1)
    later = await said_in(runtime, "friday", 1)
    [fact] = await facts_about_boston(runtime)
    stated = await statements(runtime, fact.id)
    assert sorted(m.session_id for m in stated) == sorted([first, later])
    # a replay of the later run links nothing twice
    await memorize(runtime, later, lines(1))
    await assert_one_edge_per_source(runtime, fact.id)


async def test_a_deleted_fact_said_again_stays_deleted_and_gains_no_source(
    runtime: Runtime,
) -> None:
    first = await said_in(runtime, "monday", 1)
    [fact] = await facts_about_boston(runtime)
    await runtime.services.memories.delete_memory(SETTINGS_ADMIN, fact.id, hard=False)
    await said_in(runtime, "friday", 1)
    stated = await statements(runtime, fact.id)
    assert [m.session_id for m in stated] == [first]
    assert await facts_about_boston(runtime) == []
