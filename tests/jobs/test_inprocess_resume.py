"""Embedded mode: a job a stopped process left queued runs at the next start."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.clock import utc_now
from hippograph.ids import IdKind, new_id
from hippograph.jobs import Job, JobStatus
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memorize import MemorizeJob
from hippograph.services.messages import MessageInput
from hippograph.settings import JobSettings, Settings
from jobs.inprocess import InProcessQueue
from tests.graphs import TestDatabase
from tests.jobs.support import CONVERSATION


async def test_a_job_left_queued_runs_at_the_next_start(
    tmp_path: Path,
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
) -> None:
    settings = Settings(graph=graph_db.settings(tmp_path), jobs=JobSettings(mode="inprocess"))

    async def start() -> Runtime:
        return await Runtime.start(settings, embedder=embedder, **graph_db.start)

    # A process stored the messages and recorded the job, then stopped before running it.
    first = await start()
    try:
        services = first.services
        await services.users.create_user(SETTINGS_ADMIN, "caro", "Caroline")
        session = await services.users.create_session(SETTINGS_ADMIN, "caro", "chat")
        await services.messages.add_messages(
            SETTINGS_ADMIN,
            session.id,
            [
                MessageInput(speaker=speaker, content=content, client_id=f"c{i}")
                for i, (speaker, content) in enumerate(CONVERSATION)
            ],
        )
        job = Job(
            id=new_id(IdKind.JOB, utc_now()),
            status=JobStatus.QUEUED,
            user_ids=("caro",),
            params=MemorizeJob(session_id=session.id, user_ids=("caro",)),
            created_at=utc_now(),
        )
        # Through the store, not the service: nothing is queued in this process.
        await first.connection.store.jobs.submit(job)
        assert await first.connection.store.memories.count("caro") == 0
    finally:
        await first.stop()

    second = await start()
    try:
        # The start queued it again already; wait for what it queued.
        assert isinstance(second.queue, InProcessQueue)
        await asyncio.wait_for(second.queue.drain(), timeout=30)
        found = (await second.connection.store.jobs.get_jobs([job.id]))[job.id]
        assert found.status is JobStatus.SUCCEEDED, found
        assert found.counts["messages"] == len(CONVERSATION)
        assert found.counts["memories"] >= 4
        assert await second.connection.store.memories.count("caro") == found.counts["memories"]
    finally:
        await second.stop()
