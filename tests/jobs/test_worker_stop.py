"""A worker stopped while arq writes a job's outcome stops cleanly, the outcome written.

CI once caught it: a SIGTERM that landed just after a job's function returned
cancelled arq's shielded write of the outcome, and ``close()`` re-raised the
cancellation: a traceback, no ``on_shutdown``, a write destroyed half done.
The write is held here at a gate, so the stop lands inside it every time.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest
from arq.constants import result_key_prefix
from arq.worker import Worker, get_kwargs

from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.settings import Settings
from jobs.stopping import CleanStopWorker
from jobs.worker import worker_settings
from tests.graphs import TestDatabase
from tests.jobs.conftest import memorize_only_settings
from tests.jobs.private_redis import PrivateRedis
from tests.jobs.support import (
    arq_redis,
    caro_session,
    close_worker,
    queued_in_redis,
    submit_memorize,
)

pytestmark = pytest.mark.slow  # a redis-server of its own


@pytest.fixture
def settings(graph_db: TestDatabase, tmp_path: Path, redis_server: PrivateRedis) -> Settings:
    """Arq mode with one job and one poll, so the stop finds nothing but the gated write.

    The stop cancels whatever else runs, as it should, but the Neo4j driver
    leaks a socket whose opening is cancelled (a reflect run that memorize
    queues), and the suite fails its unraisable ResourceWarning (seen here
    about one run in six). So memorize queues no reflect run. And the poll
    runs once (the job is queued before the worker starts, and the next poll
    is a minute away), so that the stop finds nothing else to cancel. (A
    poll cancelled inside its claim of the job lost redis-py's connection
    too, until jobs/redis_pool.py.)
    """
    return memorize_only_settings(graph_db, tmp_path, redis_server.url, poll_delay_s=60.0)


class _GatedOutcome(Worker):
    """arq's worker whose write of a job's outcome waits for :attr:`go`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.writing = asyncio.Event()
        self.go = asyncio.Event()

    async def finish_job(self, job_id: str, *args: Any, **kwargs: Any) -> None:
        self.writing.set()
        await self.go.wait()
        await super().finish_job(job_id, *args, **kwargs)


class _Stopped(CleanStopWorker, _GatedOutcome):
    """The clean stop around the gated write (the gate sits inside what it guards)."""


async def test_a_stop_during_arqs_write_of_the_outcome_waits_for_it_and_closes_cleanly(
    runtime: Runtime, settings: Settings
) -> None:
    job_id = await submit_memorize(runtime, await caro_session(runtime))

    worker = _Stopped(
        **get_kwargs(worker_settings(settings, runtime=runtime)), handle_signals=False
    )
    running = asyncio.create_task(worker.async_run())
    try:
        await asyncio.wait_for(worker.writing.wait(), 120)
        # The function has returned: the graph has the outcome, arq is writing its own.
        job = await runtime.services.jobs.get_job(SETTINGS_ADMIN, job_id)
        assert job.finished, job
        assert len(worker.tasks) == 1  # the memorize job's, nothing else
        worker.handle_sig(signal.SIGTERM)  # what a SIGTERM does: cancel every job's task
        # The write goes on only once close() has begun: close() must wait for it.
        asyncio.get_running_loop().call_later(0.5, worker.go.set)
        await asyncio.gather(running, return_exceptions=True)
        await asyncio.wait_for(close_worker(worker), 30)  # raised CancelledError before
    finally:
        worker.go.set()
        running.cancel()
    assert worker.pool is None  # close() went all the way: on_shutdown ran, the pool closed
    # arq's write went through: the delivery is off the queue, its outcome recorded.
    assert await queued_in_redis(settings) == 0
    async with arq_redis(settings) as client:
        assert await client.exists(f"{result_key_prefix}{job_id}:0") == 1
