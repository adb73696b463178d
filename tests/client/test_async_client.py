"""``AsyncHippoGraph`` against the real server: the same calls as the sync client, awaited."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hippograph_client import (
    AsyncHippoGraph,
    BadUserInput,
    Conflict,
    Direction,
    ForgetPolicy,
    JobStatus,
    MemoryOp,
    MemoryOpKind,
    NewMessage,
    NotFound,
    Role,
    Unauthenticated,
)

from tests.client.conftest import LiveServer

pytestmark = pytest.mark.only_on("arcadedb", "the client tests the API surface, not Cypher")

CELLO = [
    NewMessage("hal", "I started cello lessons in Porto last week.", role=Role.USER),
    NewMessage("bot", "How are the lessons going?", role=Role.ASSISTANT),
    NewMessage("hal", "Slowly, but my teacher Marta is patient.", role=Role.USER),
]


@pytest.fixture
async def admin(live: LiveServer) -> AsyncIterator[AsyncHippoGraph]:
    """An async client with the admin key."""
    async with AsyncHippoGraph(live.url, live.admin_key) as client:
        yield client


async def test_the_async_client_remembers_recalls_and_explains(admin: AsyncHippoGraph) -> None:
    assert (await admin.viewer()).admin
    user = await admin.create_user("hal", "Hal")
    assert await admin.user("hal") == user
    session = await admin.create_session("hal", "lessons")

    done = await admin.memorize("hal", session.id, CELLO, queue=True)
    assert done.job is not None
    assert done.job.status is JobStatus.SUCCEEDED
    assert [m.role for m in done.messages] == [Role.USER, Role.ASSISTANT, Role.USER]
    assert await admin.job(done.job.id) == done.job

    found = await admin.search("hal", "Which instrument is Hal learning?", top_k=3)
    best = found.hits[0].memory
    assert best is not None
    assert "cello" in best.content
    assert await admin.memory(best.id) is not None

    up = await admin.provenance(done.messages[0].id, direction=Direction.UP)
    assert up is not None
    assert best.id in {n.id for n in up.nodes}
    page = await admin.memories("hal", first=200)
    assert best.id in {m.id for m in page.memories}


async def test_the_async_client_edits_reflects_and_forgets(admin: AsyncHippoGraph) -> None:
    await admin.create_user("ivy", "Ivy")
    kept = await admin.add_memory("ivy", "Ivy grows tomatoes", importance=0.9)
    applied = await admin.apply_memory_ops(
        "ivy", [MemoryOp.update(kept.id, "Ivy grows cherry tomatoes"), MemoryOp.skip()]
    )
    assert [r.op for r in applied.results] == [MemoryOpKind.UPDATE, MemoryOpKind.SKIP]
    assert applied.results[0].superseded_id == kept.id
    edited = await admin.update_memory(applied.results[0].memory_id or "", importance=0.95)
    assert edited.importance == pytest.approx(0.95)
    await admin.add_memory("ivy", "Ivy grows basil", importance=0.9)

    reflected = await admin.reflect("ivy", force=True)
    assert reflected.job.status in set(JobStatus)
    finished = await admin.wait_for_job(reflected.job.id)
    assert finished.status is JobStatus.SUCCEEDED

    report = (await admin.forget("ivy", policy=ForgetPolicy.FUZZ, dry_run=True)).report
    assert report is not None
    assert report.counts.scanned >= 2
    deleted = await admin.delete_memory(edited.id, hard=True)
    assert deleted.hard
    assert await admin.memory(edited.id) is None


async def test_the_async_client_raises_the_apis_errors(
    admin: AsyncHippoGraph, live: LiveServer
) -> None:
    await admin.create_user("jon", "Jon")
    session = await admin.create_session("jon", "chat")
    await admin.create_user("kim", "Kim")
    kims = await admin.create_api_key("kim's app", user_ids=["kim"])
    async with AsyncHippoGraph(live.url, kims.key) as kim:
        with pytest.raises(NotFound) as refused:
            await kim.memorize("jon", session.id, CELLO)
        assert refused.value.id in {"jon", session.id}, refused.value
        with pytest.raises(NotFound):
            await kim.add_memory("jon", "Jon owes Kim ten euros")
    with pytest.raises(BadUserInput) as bad:
        await admin.search("jon", "x" * 5000)
    assert bad.value.code == "BAD_USER_INPUT"
    assert (await admin.memories("jon")).memories == ()
    async with AsyncHippoGraph(live.url, "hg_wrong") as stranger:
        with pytest.raises(Unauthenticated):
            await stranger.search("jon", "anything")


async def test_the_async_client_stores_messages_and_lists_entities(
    admin: AsyncHippoGraph,
) -> None:
    await admin.create_user("lou", "Lou")
    session = await admin.create_session("lou", "lessons")
    stored = await admin.add_messages(session.id, CELLO)
    assert stored.created == len(CELLO)
    assert (await admin.memories("lou")).memories == ()
    await admin.memorize("lou", session.id, CELLO)
    page = await admin.entities("lou", first=200)
    assert {"hal", "marta", "porto"} <= {e.norm for e in page.entities}
    assert not page.has_next_page


async def test_the_async_client_forgets_a_user(admin: AsyncHippoGraph) -> None:
    await admin.create_user("kit", "Kit")
    await admin.add_memory("kit", "Kit keeps bees", importance=0.6)
    dry = await admin.delete_user("kit")
    assert (dry.applied, dry.counts.memories) == (False, 1)
    assert (await admin.delete_user("kit", dry_run=False)).applied
    assert await admin.user("kit") is None
    with pytest.raises(NotFound):
        await admin.delete_user("kit", dry_run=False)


async def test_the_async_client_pages_users_and_deletes_a_session_with_its_provenance(
    admin: AsyncHippoGraph, live: LiveServer
) -> None:
    await admin.create_user("max", "Max")
    await admin.create_user("nia", "Nia")
    ids: list[str] = []
    page = await admin.users(first=1)
    while True:
        assert len(page.users) <= 1
        ids += [u.id for u in page.users]
        if not page.has_next_page:
            break
        page = await admin.users(first=1, after=page.end_cursor)
    assert {"max", "nia"} <= set(ids)
    assert len(ids) == len(set(ids))
    maxs = await admin.create_api_key("max's app", user_ids=["max"])
    async with AsyncHippoGraph(live.url, maxs.key) as max_:
        assert [u.id for u in (await max_.users()).users] == ["max"]

    session = await admin.create_session("max", "chat")
    stored = await admin.add_messages(session.id, CELLO[:1])
    dry = await admin.delete_with_provenance(session.id)
    assert (dry.root, dry.applied) == (session.id, False)
    assert set(dry.deleted) == {session.id, stored.messages[0].id}
    assert (dry.counts.sessions, dry.counts.messages) == (1, 1)
    with pytest.raises(Conflict):  # it would delete more than the caller expected
        await admin.delete_with_provenance(session.id, dry_run=False, expected_deleted=[session.id])
    done = await admin.delete_with_provenance(
        session.id, dry_run=False, expected_deleted=list(dry.deleted)
    )
    assert done.applied
    with pytest.raises(NotFound):
        await admin.delete_with_provenance(session.id)


async def test_settle_job_answers_a_job_as_it_stands_without_raising(
    admin: AsyncHippoGraph,
) -> None:
    await admin.create_user("oz", "Oz")
    await admin.add_memory("oz", "Oz sails on weekends", importance=0.9)
    queued = (await admin.reflect("oz", force=True)).job
    finished = await admin.settle_job(queued.id, 60)
    assert finished is not None
    assert finished.status in {JobStatus.SUCCEEDED, JobStatus.FAILED}
    assert await admin.settle_job(queued.id, 0) == await admin.job(queued.id)
    assert await admin.settle_job("job_01J0000000000000000000000Z", 1) is None


async def test_a_wait_ends_a_second_past_its_deadline_when_the_server_stops_answering(
    admin: AsyncHippoGraph, live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = live.app.state.runtime.services
    runner_store = services.job_runner._store
    start, get_job = runner_store.start, services.jobs.get_job
    released = threading.Event()
    polls = 0

    async def held_start(*args: Any) -> Any:
        # The job stays queued until the test ends (runners all busy, say).
        await asyncio.to_thread(released.wait, 60)
        return await start(*args)

    async def stalled_after_the_first(*args: Any) -> Any:
        nonlocal polls
        polls += 1
        if polls > 1:  # the server stops answering job lookups
            await asyncio.to_thread(released.wait, 60)
        return await get_job(*args)

    monkeypatch.setattr(runner_store, "start", held_start)
    monkeypatch.setattr(services.jobs, "get_job", stalled_after_the_first)
    try:
        await admin.create_user("uma", "Uma")
        await admin.add_memory("uma", "Uma keeps bees on the roof", importance=0.9)
        queued = (await admin.reflect("uma", force=True)).job
        began = time.monotonic()
        seen = await admin.settle_job(queued.id, 1.0)
        took = time.monotonic() - began
    finally:
        released.set()
    assert seen is not None
    assert seen.status is JobStatus.QUEUED
    # The wait's second plus the grace, not the HTTP timeout (30 s).
    assert 1.0 <= took < 2.8, took
    assert polls == 2  # the first, and the one that hung
    done = await admin.wait_for_job(queued.id, 60)
    assert done.status is JobStatus.SUCCEEDED
