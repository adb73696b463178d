"""Jobs on a real Redis (a private one per test) and the shared embedded ArcadeDB."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hippograph.settings import (
    ApiSettings,
    ForgettingSettings,
    JobSettings,
    RedisSettings,
    ReflectionSettings,
    Settings,
)
from tests.api.conftest import ADMIN_KEY
from tests.graphs import TestDatabase
from tests.jobs.private_redis import PrivateRedis


@pytest.fixture
def redis_server() -> Iterator[PrivateRedis]:
    """A Redis of this test's own."""
    server = PrivateRedis().start()
    try:
        yield server
    finally:
        server.stop()


def arq_settings(
    graph_db: TestDatabase, data_dir: Path, redis_url: str, **changes: dict[str, Any]
) -> Settings:
    """Settings for arq mode on the test's database, with a queue of its own.

    No scheduled sweeps: a worker's cron would queue jobs of its own whenever a
    test runs across a sweep minute (a burst worker then ran one job more, at
    minute 15 of the hour), and the tests count the jobs a worker ran.
    ``changes`` sets fields of sections: ``jobs={"lease_s": 3.0}``.
    """
    settings = Settings(
        graph=graph_db.settings(data_dir),
        api=ApiSettings(admin_key=ADMIN_KEY, key_cache_ttl_s=0),
        jobs=JobSettings(mode="arq", poll_delay_s=0.05, queue=f"q-{uuid.uuid4().hex[:8]}"),
        redis=RedisSettings(url=redis_url),
        reflection=ReflectionSettings(sweep_interval_s=0),
        forgetting=ForgettingSettings(sweep_interval_s=0),
    )
    return settings.model_copy(
        update={
            name: getattr(settings, name).model_copy(update=fields)
            for name, fields in changes.items()
        }
    )


def memorize_only_settings(
    graph_db: TestDatabase, data_dir: Path, redis_url: str, **jobs: Any
) -> Settings:
    """:func:`arq_settings` where memorize queues no reflect run, with ``jobs`` fields set.

    For tests that stop a worker once the memorize job is done: a reflect run
    it had just begun would be cancelled while it opens a graph connection,
    which the Neo4j driver then leaks (test_worker_stop.py says more).
    """
    return arq_settings(
        graph_db, data_dir, redis_url, jobs=jobs, memorize={"reflect_after_write": False}
    )


@pytest.fixture
def settings(graph_db: TestDatabase, tmp_path: Path, redis_server: PrivateRedis) -> Settings:
    """This test's settings: jobs on its private Redis."""
    return arq_settings(graph_db, tmp_path, redis_server.url)
