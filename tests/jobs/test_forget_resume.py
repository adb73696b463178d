"""A forget job that stops mid-run resumes after its last committed page, never redoing one.

The stop is real: the LLM writing the fainter texts (the local stub server,
the only test double) stops answering halfway through the second page, the
job fails with the first page committed, and the job run again (the same id)
carries on from its cursor once the LLM is back.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.errors import Conflict
from hippograph.forgetting import BatchWrite, ForgetRequest
from hippograph.ids import IdKind, new_id
from hippograph.jobs import JobStatus
from hippograph.models import IndexedText, Memory, MemoryKind, MemoryLevel, Sources
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.settings import (
    ForgettingSettings,
    JobSettings,
    LLMSettings,
    Settings,
)
from jobs.inprocess import InProcessQueue
from tests.graphs import TestDatabase
from tests.llm.stub_server import Reply, StubLLMServer, completion, error

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PAGE = 4


def _fuzzed(n: int) -> list[Reply]:
    answer = json.dumps({"content": "Ann liked some hobby", "topic": "hobbies"})
    return [completion(answer, 50, 10) for _ in range(n)]


def _settings(tmp_path: Path, graph_db: TestDatabase, stub: StubLLMServer) -> Settings:
    return Settings(
        graph=graph_db.settings(tmp_path),
        jobs=JobSettings(mode="inprocess"),
        llm=LLMSettings(
            provider="openai", base_url=stub.base_url, model="stub", timeout_s=2, max_retries=0
        ),
        forgetting=ForgettingSettings(batch_size=PAGE, sweep_interval_s=0),
    )


async def _memories(runtime: Runtime, embedder: SentenceTransformerEmbedder) -> list[str]:
    """Ann's three pages of old memories, each about to fade to a tag; their ids, in order."""
    await runtime.services.users.create_user(SETTINGS_ADMIN, "ann", "Ann")
    old = T0 - timedelta(days=300)  # weight 0.25: every one becomes a tag
    texts = [f"Ann took up hobby number {i} with friends" for i in range(3 * PAGE)]
    vectors = await embedder.embed(texts)
    memories = [
        Memory(
            id=new_id(IdKind.MEMORY, old + timedelta(seconds=i)),
            user_id="ann",
            kind=MemoryKind.SEMANTIC,
            content=t,
            importance=0.5,
            created_at=old,
            last_accessed_at=old,
        )
        for i, t in enumerate(texts)
    ]
    await runtime.connection.store.memories.add_many(
        [
            (m, IndexedText(v, t), Sources())
            for m, v, t in zip(memories, vectors, texts, strict=True)
        ]
    )
    return sorted(m.id for m in memories)


async def test_a_stopped_forget_job_resumes_after_its_last_page(
    tmp_path: Path,
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    stub: StubLLMServer,
) -> None:
    now = T0

    def clock() -> datetime:
        return now

    runtime = await Runtime.start(
        _settings(tmp_path, graph_db, stub), embedder=embedder, clock=clock, **graph_db.start
    )
    try:
        store = runtime.connection.store
        ids = await _memories(runtime, embedder)

        # Page 1 answered in full, page 2 only half: the LLM then stops answering.
        stub.script(*_fuzzed(PAGE + PAGE // 2))
        service = runtime.services.forgetting
        job_id = new_id(IdKind.JOB, T0)
        assert isinstance(runtime.queue, InProcessQueue)
        await service.submit(ForgetRequest("ann"), job_id=job_id)
        await asyncio.wait_for(runtime.queue.drain(), timeout=30)
        failed = (await store.jobs.get_jobs([job_id]))[job_id]
        assert failed.status is JobStatus.FAILED, failed
        assert failed.cursor == ids[PAGE - 1]
        assert failed.progress["scanned"] == PAGE
        levels = await store.memories.get_memories(ids)
        assert [levels[i].level for i in ids] == [MemoryLevel.TAG] * PAGE + [MemoryLevel.FULL] * (
            2 * PAGE
        )

        # The same batch offered again (a second runner behind) is refused, whole.
        stale = BatchWrite(
            user_id="ann", now=T0, soft_deletes=[ids[-1]], job_id=job_id, expected_cursor=""
        )
        await store.jobs.start(job_id, T0, T0)  # running again, as a runner would see it
        try:
            await store.forgetting.apply(stale)
            raise AssertionError("a stale batch was applied")
        except Conflict:
            pass
        assert (await store.memories.get_memories([ids[-1]]))[ids[-1]].deleted_at is None
        await store.jobs.requeue(job_id, failed.attempts, T0)
        await store.jobs.finish(job_id, failed.attempts, JobStatus.FAILED, T0, {}, "stopped", {})

        # The LLM is back: the job, submitted again, starts at page 2.
        asked_before = len(stub.received)
        stub.script(*_fuzzed(2 * PAGE))
        now = T0 + timedelta(hours=1)  # weights stay those of the job's own moment
        await service.submit(ForgetRequest("ann"), job_id=job_id)
        await asyncio.wait_for(runtime.queue.drain(), timeout=30)
        done = (await store.jobs.get_jobs([job_id]))[job_id]
        assert done.status is JobStatus.SUCCEEDED, done
        assert len(stub.received) - asked_before == 2 * PAGE  # page 1 was not asked again
        assert done.counts["scanned"] == 3 * PAGE
        assert done.counts["batches"] == 3
        assert done.counts["level:full>tag"] == 3 * PAGE
        after = await store.memories.get_memories(ids)
        for memory_id in ids:
            m = after[memory_id]
            assert m.level is MemoryLevel.TAG
            assert m.content == "Ann liked some hobby"
            assert len(m.level_history) == 1  # each changed once: no page done twice
            assert m.level_history[0].at == T0

        # Idempotent: run again, nothing changes and the LLM is not asked.
        asked = len(stub.received)
        report = await service.run(ForgetRequest("ann"), False, now)
        assert report.count("changed") == 0
        assert len(stub.received) == asked
    finally:
        await runtime.stop()


async def test_a_forget_job_tried_again_after_an_outage_goes_on_from_its_cursor(
    tmp_path: Path,
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    stub: StubLLMServer,
) -> None:
    runtime = await Runtime.start(
        _settings(tmp_path, graph_db, stub), embedder=embedder, clock=lambda: T0, **graph_db.start
    )
    try:
        store = runtime.connection.store
        ids = await _memories(runtime, embedder)
        # Page 1 answered, page 2 half: two failures of the moment, then all is well.
        stub.script(*_fuzzed(PAGE + PAGE // 2), error(503, "busy"), error(503, "busy"))
        stub.script(*_fuzzed(2 * PAGE))
        job_id = new_id(IdKind.JOB, T0)
        assert isinstance(runtime.queue, InProcessQueue)
        await runtime.services.forgetting.submit(ForgetRequest("ann"), job_id=job_id)
        await asyncio.wait_for(runtime.queue.drain(), timeout=60)

        done = (await store.jobs.get_jobs([job_id]))[job_id]
        assert done.status is JobStatus.SUCCEEDED, done
        assert done.counts["scanned"] == 3 * PAGE
        after = await store.memories.get_memories(ids)
        assert all(len(after[i].level_history) == 1 for i in ids)  # no page done twice
    finally:
        await runtime.stop()
