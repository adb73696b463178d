"""Jobs on a real Redis (a private one per test) and the shared embedded ArcadeDB."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from graph.embedded import EmbeddedArcadeDB
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.runtime import Runtime
from hippograph.settings import ApiSettings, GraphSettings, JobSettings, RedisSettings, Settings
from tests.api.conftest import ADMIN_KEY
from tests.jobs.private_redis import PrivateRedis


@pytest.fixture
def redis_server() -> Iterator[PrivateRedis]:
    """A Redis of this test's own."""
    server = PrivateRedis().start()
    try:
        yield server
    finally:
        server.stop()


def arq_settings(data_dir: Path, redis_url: str) -> Settings:
    """Settings for arq mode on the test's embedded server, with a queue of its own."""
    return Settings(
        graph=GraphSettings(data_dir=data_dir),
        api=ApiSettings(admin_key=ADMIN_KEY, key_cache_ttl_s=0),
        jobs=JobSettings(mode="arq", poll_delay_s=0.05, queue=f"q-{uuid.uuid4().hex[:8]}"),
        redis=RedisSettings(url=redis_url),
    )


@pytest.fixture
def settings(tmp_path: Path, redis_server: PrivateRedis) -> Settings:
    """This test's settings: jobs on its private Redis."""
    return arq_settings(tmp_path, redis_server.url)


@pytest.fixture
async def runtime(
    settings: Settings,
    arcade: EmbeddedArcadeDB,
    embedder: SentenceTransformerEmbedder,
    database_name: str,
) -> AsyncIterator[Runtime]:
    """A runtime in arq mode on a fresh database (what the API process holds)."""
    started = await Runtime.start(
        settings, embedder=embedder, embedded=arcade, database=database_name
    )
    try:
        yield started
    finally:
        await started.stop()
