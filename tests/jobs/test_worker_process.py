"""`hippograph worker --burst` as an operator runs it: a separate process, a graph server."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import pytest

from hippograph.jobs import JobStatus
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memorize import MemorizeRequest
from hippograph.services.messages import MessageInput
from hippograph.settings import Settings
from tests.graphs import TestDatabase
from tests.jobs.support import CONVERSATION, queued_in_redis, worker_env

HIPPOGRAPH = Path(sys.executable).parent / "hippograph"


@pytest.mark.slow
async def test_the_worker_command_runs_queued_jobs_and_exits_in_burst_mode(
    runtime: Runtime,
    settings: Settings,
    graph_db: TestDatabase,
    tmp_path: Path,
) -> None:
    services = runtime.services
    await services.users.create_user(SETTINGS_ADMIN, "caro", "Caroline")
    session = await services.users.create_session(SETTINGS_ADMIN, "caro", "chat")
    outcome = await services.memorize.memorize(
        SETTINGS_ADMIN,
        MemorizeRequest(
            user_ids=("caro",),
            session_id=session.id,
            messages=tuple(MessageInput(speaker=s, content=c) for s, c in CONVERSATION),
            run_async=True,
        ),
    )
    assert outcome.job is not None
    assert await queued_in_redis(settings) == 1

    process = await asyncio.create_subprocess_exec(
        str(HIPPOGRAPH),
        "worker",
        "--burst",
        env=worker_env(settings, graph_db, tmp_path / "worker"),
        cwd=tmp_path,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, raw = await asyncio.wait_for(process.communicate(), timeout=120)
    except TimeoutError:
        process.kill()
        await process.wait()
        pytest.fail("the burst worker did not exit")
    errors = raw.decode()
    assert process.returncode == 0, errors
    assert "Traceback" not in errors, errors
    assert "succeeded" in errors  # arq's log line of the finished job
    job = await services.jobs.get_job(SETTINGS_ADMIN, outcome.job.id)
    assert job.status is JobStatus.SUCCEEDED, job
    assert job.counts["memories"] >= 4
    assert await queued_in_redis(settings) == 0


@pytest.mark.slow
@pytest.mark.usefixtures("runtime")  # the graph the worker reaches as a server
async def test_a_worker_whose_metrics_port_is_taken_refuses_to_start_in_one_line(
    settings: Settings, graph_db: TestDatabase, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        extra = {"HIPPOGRAPH_JOBS__METRICS_PORT": str(port)}
        process = await asyncio.create_subprocess_exec(
            str(HIPPOGRAPH),
            "worker",
            "--burst",
            env=worker_env(settings, graph_db, tmp_path / "worker", extra),
            cwd=tmp_path,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, raw = await asyncio.wait_for(process.communicate(), timeout=120)
    errors = raw.decode()
    assert process.returncode == 2, errors
    assert "Traceback" not in errors, errors
    assert errors.splitlines()[-1].startswith(
        f"hippograph: the worker's metrics port {port} cannot be used ("
    )
