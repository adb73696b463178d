"""GraphDriver: reads outside an explicit transaction, and what a write retries."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from neo4j import AsyncSession
from neo4j.exceptions import IncompleteCommit, SessionExpired

from graph.links import require_linked
from graph.store import GraphStore
from hippograph.errors import NotFound, Unavailable


async def test_query_reads_every_record_of_one_statement(store: GraphStore) -> None:
    rows = await store.graph.query("UNWIND range(1, $n) AS i RETURN i", {"n": 3})
    assert [r["i"] for r in rows] == [1, 2, 3]


async def test_query_sees_what_a_committed_write_left(store: GraphStore) -> None:
    async def create(tx: object) -> None:
        await tx.run("CREATE (:Probe {id: 'p1'})")  # type: ignore[attr-defined]

    await store.graph.write(create)
    rows = await store.graph.query("MATCH (p:Probe {id: $id}) RETURN p.id AS id", {"id": "p1"})
    assert [r["id"] for r in rows] == ["p1"]


async def test_a_write_whose_link_missed_an_end_is_undone_and_run_again(store: GraphStore) -> None:
    runs: list[int] = []

    async def link_once_short(tx: object) -> None:
        runs.append(len(runs))
        await tx.run("CREATE (:Probe {id: $id})", {"id": f"p{len(runs)}"})  # type: ignore[attr-defined]
        # the first run's link "finds" no end: as ArcadeDB's concurrent writes sometimes do
        require_linked(1 if len(runs) > 1 else 0, 1, "source", "one of 1 message_ids")

    await store.graph.write(link_once_short)
    rows = await store.graph.query("MATCH (p:Probe) RETURN p.id AS id ORDER BY id")
    # the short run was rolled back whole; the second committed
    assert len(runs) == 2
    assert [r["id"] for r in rows] == ["p2"]


async def test_a_link_that_never_finds_its_end_is_not_found_and_writes_nothing(
    store: GraphStore,
) -> None:
    runs: list[int] = []

    async def link_short(tx: object) -> None:
        runs.append(len(runs))
        await tx.run("CREATE (:Probe {id: 'p'})")  # type: ignore[attr-defined]
        require_linked(0, 1, "source", "msg_gone")

    with pytest.raises(NotFound, match="msg_gone"):
        await store.graph.write(link_short)
    assert len(runs) == store.graph.retry.races + 1
    assert await store.graph.query("MATCH (p:Probe) RETURN p.id AS id") == []


def _lost_after(commit: bool, error: Exception, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the next write transaction fail with ``error`` (after committing it, if
    ``commit``), as a connection lost at that point would; the calls, counted."""
    original = AsyncSession.execute_write
    calls: list[int] = []

    async def failing_once(
        self: AsyncSession, work: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any
    ) -> Any:
        calls.append(len(calls))
        if len(calls) > 1:
            return await original(self, work, *args, **kwargs)
        if commit:
            await original(self, work, *args, **kwargs)
        raise error

    monkeypatch.setattr(AsyncSession, "execute_write", failing_once)
    return calls


async def _create_probe(tx: object) -> None:
    await tx.run("CREATE (:Probe {id: 'p'})")  # type: ignore[attr-defined]


async def test_a_write_whose_commit_may_have_landed_is_not_run_again(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _lost_after(True, IncompleteCommit("connection lost during commit"), monkeypatch)

    with pytest.raises(Unavailable, match="may or may not have been made"):
        await store.graph.write(_create_probe)

    assert len(calls) == 1
    assert len(await store.graph.query("MATCH (p:Probe) RETURN p.id AS id")) == 1


async def test_a_write_whose_session_was_lost_before_it_ran_is_run_again(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _lost_after(False, SessionExpired("the session expired"), monkeypatch)

    await store.graph.write(_create_probe)

    assert len(calls) == 2
    assert len(await store.graph.query("MATCH (p:Probe) RETURN p.id AS id")) == 1
