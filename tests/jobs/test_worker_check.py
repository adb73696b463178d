"""`arq jobs.worker.WorkerSettings --check`: arq's own health check works on our settings class."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from hippograph.runtime import Runtime
from hippograph.settings import Settings
from jobs.worker import build_worker
from tests.jobs.support import close_worker

ROOT = Path(__file__).resolve().parents[2]


async def _check(settings: Settings) -> int:
    """The exit code of arq's health check, with ``settings`` in the environment."""
    env = os.environ | {
        "HIPPOGRAPH_JOBS__MODE": "arq",
        "HIPPOGRAPH_JOBS__QUEUE": settings.jobs.queue,
        "HIPPOGRAPH_REDIS__URL": settings.redis.url,
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arq", "jobs.worker.WorkerSettings", "--check", env=env, cwd=ROOT
    )
    return await asyncio.wait_for(process.wait(), 60)


@pytest.mark.slow  # starts Redis, an arq worker and arq --check in child processes
async def test_arq_check_passes_while_a_worker_runs_and_fails_when_none_does(
    runtime: Runtime, settings: Settings
) -> None:
    assert await _check(settings) != 0  # no worker has run on this queue

    worker = build_worker(settings, runtime=runtime, handle_signals=False)
    main = asyncio.create_task(worker.async_run())
    try:
        # A worker records its health at its first poll of the queue.
        for _ in range(100):
            if worker.pool is not None and await worker.pool.exists(worker.health_check_key):
                break
            await asyncio.sleep(0.05)
        assert await _check(settings) == 0
    finally:
        main.cancel()
        await asyncio.gather(main, return_exceptions=True)
        await close_worker(worker)
    assert await _check(settings) != 0  # the stopped worker took its health record away
