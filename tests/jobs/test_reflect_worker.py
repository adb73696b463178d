"""The reflect job is idempotent under real workers (docs/design.md §6).

The same job twice, or two workers at once, make each reflection once; a
worker killed mid-job leaves either nothing or the whole reflection. The
worker processes are ``hippograph worker`` on a private Redis and the shared
ArcadeDB reached as a server; the ones that must be caught mid-job run
through :mod:`tests.jobs.paused_worker`, which holds them at a chosen point
of the reflect write so that the kill lands there every time.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hippograph.clock import utc_now
from hippograph.ids import IdKind, new_id
from hippograph.jobs import Job, JobStatus
from hippograph.reflection import ReflectionRequest, ReflectionSummary
from hippograph.runtime import Runtime
from hippograph.services.jobs import JobService
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.reflection import ReflectJob
from hippograph.settings import Settings
from jobs.arq_queue import ArqQueue
from jobs.worker import build_worker
from tests.graphs import TestDatabase
from tests.jobs.conftest import arq_settings
from tests.jobs.paused_worker import GATE, PAUSE_AFTER, PAUSED
from tests.jobs.private_redis import PrivateRedis
from tests.jobs.support import (
    HIPPOGRAPH,
    ReflectionState,
    WorkerProcess,
    close_worker,
    expected_themes,
    queued_in_redis,
    reflection_state,
    run_burst_worker,
    seed_facts,
    wait_until,
    worker_env,
)

pytestmark = pytest.mark.slow  # a redis-server and worker processes of its own

# jobs.lease_s: how long a job's claim in the graph outlives a dead runner,
# here and in every worker (worker_env passes it on). Renewed every third of
# it: 3 s were lost on a loaded two-core machine, the event loop held up by
# the reflection's own work, and the job stopped without writing.
LEASE_S = 5.0
# jobs.timeout_s sets arq's job timeout too: arq hands the killed worker's
# job out again once its claim (this, jobs/worker.py's grace and 10 s) expires.
KILLED_TIMEOUT_S = 5
TIMEOUT = "HIPPOGRAPH_JOBS__TIMEOUT_S"
ROOT = Path(__file__).resolve().parents[2]
PAUSED_WORKER = [sys.executable, "-m", "tests.jobs.paused_worker", "worker"]


@pytest.fixture
def time_limit_s() -> float:
    """jobs.timeout_s: ample for a reflection of 400 facts on a loaded machine.

    A test that needs a job timed out sets its own (``parametrize``): with
    the lease's 3 s for every test, a clean run timed out under load.
    """
    return 60.0


@pytest.fixture
def settings(
    graph_db: TestDatabase, tmp_path: Path, redis_server: PrivateRedis, time_limit_s: float
) -> Settings:
    """Arq mode (no scheduled sweeps, see arq_settings) with a short lease."""
    jobs = {"lease_s": LEASE_S, "timeout_s": time_limit_s}
    return arq_settings(graph_db, tmp_path, redis_server.url, jobs=jobs)


@pytest.fixture
async def workers() -> AsyncIterator[list[WorkerProcess]]:
    """Worker processes a test starts; any still running afterwards are stopped."""
    started: list[WorkerProcess] = []
    try:
        yield started
    finally:
        await asyncio.gather(*(w.stop() for w in started))


def _env(settings: Settings, graph_db: TestDatabase, data: Path) -> dict[str, str]:
    # The paused worker is a module of the tests: the repository root must be importable.
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return worker_env(settings, graph_db, data, {"PYTHONPATH": path})


async def _job(runtime: Runtime, job_id: str) -> Job:
    return await runtime.services.jobs.get_job(SETTINGS_ADMIN, job_id)


async def _finished(runtime: Runtime, *job_ids: str) -> bool:
    jobs = [await _job(runtime, job_id) for job_id in job_ids]
    return all(job.status in {JobStatus.SUCCEEDED, JobStatus.FAILED} for job in jobs)


async def _ann_with_facts(runtime: Runtime, count: int, seed: int) -> list[str]:
    """User ann with ``count`` facts on many themes (``seed_facts``); their ids."""
    await runtime.services.users.create_user(SETTINGS_ADMIN, "ann", "Ann")
    return await seed_facts(runtime, "ann", count, seed=seed)


async def _ann_with_themes(
    runtime: Runtime, count: int, seed: int
) -> tuple[list[str], set[frozenset[str]]]:
    """``_ann_with_facts``, and the fact groups one clean reflect run would cover."""
    facts = await _ann_with_facts(runtime, count, seed)
    return facts, await expected_themes(runtime, "ann")


async def _covers_themes(
    runtime: Runtime, facts: list[str], expected: set[frozenset[str]]
) -> ReflectionState:
    """ann's committed reflections over ``facts``: consistent, one per expected theme."""
    state = await reflection_state(runtime, "ann", facts)
    state.assert_consistent()
    assert set(state.groups.values()) == expected
    return state


async def test_a_worker_killed_mid_write_leaves_nothing_and_the_retry_reflects_once(
    runtime: Runtime,
    settings: Settings,
    graph_db: TestDatabase,
    tmp_path: Path,
    workers: list[WorkerProcess],
) -> None:
    services = runtime.services
    paused = tmp_path / "paused"
    env = _env(settings, graph_db, tmp_path / "data")
    # Held inside the write's open transaction after three reflections and
    # their SUMMARIZES edges (1.5 s into the job): killed there, it has done
    # the most it can without committing. It loads its model meanwhile.
    first = await WorkerProcess.start(
        PAUSED_WORKER,
        env | {TIMEOUT: str(KILLED_TIMEOUT_S), PAUSE_AFTER: "3", PAUSED: str(paused)},
        tmp_path / "first.log",
    )
    workers.append(first)
    facts, expected = await _ann_with_themes(runtime, 400, seed=7)
    assert len(expected) >= 6  # many themes: the kill lands between reflections

    job = await services.reflection.submit("ann", force=True)

    async def is_paused() -> bool:
        return await asyncio.to_thread(paused.exists)

    await wait_until(is_paused, "the worker to pause inside the reflect write", [first])
    running = await _job(runtime, job.id)
    assert (running.status, running.attempts) == (JobStatus.RUNNING, 1)
    assert await first.kill() == -signal.SIGKILL

    # Nothing of the open transaction survives: no reflection, no edge, no flag.
    killed = await reflection_state(runtime, "ann", facts)
    killed.assert_consistent()
    assert (killed.reflections, killed.groups, killed.consolidated) == (0, {}, frozenset())
    assert (await _job(runtime, job.id)).status is JobStatus.RUNNING  # nobody finished it

    # arq hands the job out again once the dead worker's claim on it expires
    # (its timeout + 10 s); the retry's lease, shorter than that, is over, so
    # it takes the job over and runs it.
    second = await WorkerProcess.start(
        [str(HIPPOGRAPH), "worker", "--burst"],
        # Its own time limit is the whole reflection's, on a loaded machine.
        env | {TIMEOUT: "60"},
        tmp_path / "second.log",
    )
    workers.append(second)
    assert await second.exited(within=60) == 0, second.output()
    assert "Traceback" not in second.output(), second.output()

    done = await _job(runtime, job.id)
    assert (done.status, done.attempts, done.error) == (JobStatus.SUCCEEDED, 2, None)
    covered = sum(len(group) for group in expected)
    assert done.counts == {"due": 1, "reflections": len(expected), "consolidated": covered}

    # One reflection per theme, exactly the clean run's, each fact once.
    after = await _covers_themes(runtime, facts, expected)
    assert after.reflections == len(expected)
    assert await queued_in_redis(settings) == 0


async def test_two_workers_at_once_make_each_reflection_once(
    runtime: Runtime,
    settings: Settings,
    graph_db: TestDatabase,
    tmp_path: Path,
    workers: list[WorkerProcess],
) -> None:
    services = runtime.services
    gate = tmp_path / "gate"
    gate.mkdir()
    # One queue each, so that each worker takes one of the two jobs.
    queues = [settings.jobs.queue, f"{settings.jobs.queue}-b"]
    for i, queue in enumerate(queues):
        queue_settings = settings.model_copy(
            update={"jobs": settings.jobs.model_copy(update={"queue": queue})}
        )
        env = _env(queue_settings, graph_db, tmp_path / f"data{i}")
        # The wait at the gate counts against arq's job timeout: no short lease here.
        env |= {GATE: str(gate), TIMEOUT: "120"}
        workers.append(await WorkerProcess.start(PAUSED_WORKER, env, tmp_path / f"worker{i}.log"))
    facts, expected = await _ann_with_themes(runtime, 400, seed=11)
    assert len(expected) >= 6

    first = await services.reflection.submit("ann", force=True)
    other_queue = await ArqQueue.connect(settings.redis.url, queues[1])
    try:
        # What reflection.submit does, through a job service on the other queue.
        other = JobService(runtime.connection.store.jobs, other_queue, utc_now)
        second = await other.submit(
            new_id(IdKind.JOB, utc_now()), ["ann"], ReflectJob(user_id="ann", force=True)
        )
    finally:
        await other_queue.close()

    # Both have read the same pending facts and made the same reflections;
    # neither has written. Then both write at once.
    async def both_ready() -> bool:
        return len(await asyncio.to_thread(lambda: list(gate.glob("ready-*")))) == 2

    await wait_until(both_ready, "both workers to reach the reflect write", workers)
    for job_id in (first.id, second.id):
        assert (await _job(runtime, job_id)).status is JobStatus.RUNNING
    await asyncio.to_thread((gate / "go").touch)

    async def both_finished() -> bool:
        return await _finished(runtime, first.id, second.id)

    await wait_until(both_finished, "both reflect jobs to finish", workers)
    jobs = [await _job(runtime, job_id) for job_id in (first.id, second.id)]
    for job in jobs:
        assert (job.status, job.error) == (JobStatus.SUCCEEDED, None), job
    # One transaction made every reflection; the other, retried after losing
    # the race, found them made.
    covered = sum(len(group) for group in expected)
    made = sorted((job.counts["reflections"], job.counts["consolidated"]) for job in jobs)
    assert made == [(0, 0), (len(expected), covered)]

    state = await _covers_themes(runtime, facts, expected)
    assert state.reflections == len(expected)
    for worker in workers:
        assert "Traceback" not in worker.output(), worker.output()


async def test_the_same_job_twice_creates_nothing_new(runtime: Runtime, settings: Settings) -> None:
    services = runtime.services
    facts, expected = await _ann_with_themes(runtime, 300, seed=3)
    job = await services.reflection.submit("ann", force=True)
    assert await queued_in_redis(settings) == 1  # no worker: it stays there

    done = await services.job_runner.run(job.id)
    assert done is not None
    assert done.status is JobStatus.SUCCEEDED
    assert done.counts["reflections"] == len(expected)
    state = await _covers_themes(runtime, facts, expected)

    # Delivered again (arq retries, a second worker): a finished job is left alone.
    assert await services.job_runner.run(job.id) is None
    # Submitted again under its id: the first job, not queued again.
    again = await services.jobs.submit(job.id, ["ann"], job.params)
    assert again == done
    assert await queued_in_redis(settings) == 1
    assert await _job(runtime, job.id) == done
    assert await reflection_state(runtime, "ann", facts) == state


async def test_a_job_retried_after_its_write_committed_creates_nothing_new(
    runtime: Runtime, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = runtime.services
    facts, expected = await _ann_with_themes(runtime, 300, seed=5)
    assert len(expected) >= 6  # their reflections weigh 0.9 each: ≥ 4.0 together
    job = await services.reflection.submit("ann", force=True)

    # The runner dies after the write committed, before the job is recorded
    # as done: the same as a worker killed at that moment.
    job_records = runtime.connection.store.jobs

    async def die(*args: object) -> None:
        raise RuntimeError("the worker died")

    with monkeypatch.context() as patched:
        patched.setattr(job_records, "finish", die)
        with pytest.raises(RuntimeError, match="the worker died"):
            await services.job_runner.run(job.id)
    await _covers_themes(runtime, facts, expected)
    assert (await _job(runtime, job.id)).status is JobStatus.RUNNING

    await asyncio.sleep(LEASE_S + 0.5)  # the lease runs out; arq would deliver it again
    retried = await services.job_runner.run(job.id)
    assert retried is not None
    assert retried.status is JobStatus.SUCCEEDED
    after = await reflection_state(runtime, "ann", facts)
    after.assert_consistent()
    assert after.reflections == len(expected), retried.counts  # fails: reflections of reflections


# The time limit as short as the lease: this test's job outlasts it.
@pytest.mark.parametrize("time_limit_s", [LEASE_S])
async def test_a_job_that_times_out_is_not_left_running(
    runtime: Runtime, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = runtime.services
    await _ann_with_facts(runtime, 40, seed=9)
    summarise = runtime.llm.reflect

    async def slow(request: ReflectionRequest) -> ReflectionSummary:
        await asyncio.sleep(LEASE_S + 1)  # longer than the job's time limit
        return await summarise(request)

    monkeypatch.setattr(runtime.llm, "reflect", slow)
    job = await services.reflection.submit("ann", force=True)
    await run_burst_worker(settings, runtime)  # arq times the job out, then the queue is empty
    assert await queued_in_redis(settings) == 0
    status = (await _job(runtime, job.id)).status
    assert status is not JobStatus.RUNNING  # fails: nobody will ever finish it


async def test_a_job_cancelled_by_a_worker_shutdown_runs_again(
    runtime: Runtime, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = runtime.services
    await _ann_with_facts(runtime, 40, seed=13)
    summarise = runtime.llm.reflect
    busy = asyncio.Event()

    async def stuck(request: ReflectionRequest) -> ReflectionSummary:
        busy.set()
        await asyncio.sleep(3600)  # until the shutdown cancels it
        return await summarise(request)

    job = await services.reflection.submit("ann", force=True)
    worker = build_worker(settings, runtime=runtime, handle_signals=False)
    with monkeypatch.context() as patched:
        patched.setattr(runtime.llm, "reflect", stuck)
        main = asyncio.create_task(worker.async_run())
        await asyncio.wait_for(busy.wait(), 30)
        worker.handle_sig(signal.SIGTERM)  # what arq does on SIGTERM
        await asyncio.gather(main, return_exceptions=True)
        await close_worker(worker)
    assert await queued_in_redis(settings) == 1  # arq put it back, for any worker

    await run_burst_worker(settings, runtime)  # the next worker, at once
    assert await queued_in_redis(settings) == 0
    done = await _job(runtime, job.id)
    assert done.status is JobStatus.SUCCEEDED  # fails: 'running', and queued nowhere
