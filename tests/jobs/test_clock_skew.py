"""Server mode compares each process's clock with its Redis's at start (jobs/clock_skew.py)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import pytest

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.clock import utc_now
from hippograph.runtime import Runtime
from hippograph.settings import Settings
from jobs.arq_queue import ArqQueue
from jobs.clock_skew import check_clock
from tests.graphs import TestDatabase
from tests.jobs.private_redis import PrivateRedis

pytestmark = pytest.mark.slow  # a redis-server of its own


def _ahead() -> datetime:
    return utc_now() + timedelta(seconds=20)


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "jobs.clock_skew"]


async def test_a_process_whose_clock_runs_ahead_of_redis_says_so_when_it_starts(
    settings: Settings,
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="jobs.clock_skew"):
        runtime = await Runtime.start(settings, embedder=embedder, clock=_ahead, **graph_db.start)
        await runtime.stop()
    [warning] = _warnings(caplog)
    assert warning.startswith("this host's clock is 20."), warning
    assert "ahead of Redis's, more than the 5.0 s allowed" in warning


async def test_a_clock_in_step_with_redis_starts_without_a_word(
    runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    assert isinstance(runtime.queue, ArqQueue)
    with caplog.at_level(logging.WARNING, logger="jobs.clock_skew"):
        skew = await check_clock(runtime.queue, utc_now, runtime.settings.jobs.lease_s)
    assert skew is not None
    assert abs(skew) < 1.0, skew
    assert _warnings(caplog) == []


async def test_a_redis_that_went_away_leaves_the_clock_unchecked_and_says_why(
    runtime: Runtime, redis_server: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    assert isinstance(runtime.queue, ArqQueue)
    redis_server.stop()
    with caplog.at_level(logging.WARNING, logger="jobs.clock_skew"):
        assert await check_clock(runtime.queue, _ahead, runtime.settings.jobs.lease_s) is None
    [warning] = _warnings(caplog)
    assert warning.startswith("could not compare this host's clock with Redis's: Redis "), warning
