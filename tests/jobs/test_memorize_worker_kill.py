"""A memorize job whose worker is killed mid-job: nothing half-written, nothing twice, then done.

``hippograph worker`` processes on a private Redis and the run's Neo4j
(reached as a server, as a deployment runs them) take a 240-message
memorize job. The job writes a few MemUnits per transaction, so a worker
killed with SIGKILL once the first units are in has committed some of its
writes and not others. After each kill the graph must hold only whole
writes: every MemUnit with its messages, every extracted memory with its
MemUnit and message, no message in two MemUnits. The next worker resumes
from what was written, and the finished job leaves exactly what a job that
was never interrupted leaves (the same user's messages, memorized in this
process for comparison).

On the ArcadeDB run the serve process itself is killed instead
(tests/e2e/test_crash_durability.py): there the store lives inside it.
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from pathlib import Path

import neo4j
import pytest

from hippograph.jobs import JobStatus
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memorize import MemorizeRequest
from hippograph.services.messages import MessageInput
from hippograph.settings import Settings
from tests.graphs import TestDatabase
from tests.jobs.support import HIPPOGRAPH, WorkerProcess, wait_until, worker_env

# worker processes of its own, killed and restarted
pytestmark = [
    pytest.mark.slow,
    # a worker killed mid-write: what a server commits is the server's own
    pytest.mark.every_server("a kill mid-transaction tests the server's commit, not the API"),
]

MESSAGES = 240
KILLS = 3
# The killed workers' lease: after it, the next worker's lease sweep finds the
# job and takes it over.
# A live worker renews it, so the job's time limit stays the default 600 s
# however slow a loaded machine makes the first write.
LEASE_S = 3
TOPICS = ["climbing", "the garden", "a job interview", "a trip to Porto", "the new puppy"]
STATE = """
MATCH (s:Session {id: $session})
OPTIONAL MATCH (m:Message {session_id: s.id})
OPTIONAL MATCH (u:MemUnit)-[:DERIVED_FROM]->(m)
WITH m, count(u) AS units
RETURN count(m) AS messages, sum(CASE WHEN units > 1 THEN 1 ELSE 0 END) AS twice,
       sum(units) AS placed"""
UNITS = """
MATCH (u:MemUnit {session_id: $session})
OPTIONAL MATCH (u)-[:DERIVED_FROM]->(m:Message)
WITH u, count(m) AS messages
RETURN count(u) AS units, sum(CASE WHEN messages = 0 THEN 1 ELSE 0 END) AS empty"""
MEMORIES = """
MATCH (x:Memory {user_id: $user}) WHERE x.source = 'extraction'
OPTIONAL MATCH (x)-[:DERIVED_FROM]->(u:MemUnit)
OPTIONAL MATCH (x)-[:DERIVED_FROM]->(m:Message)
WITH x, count(DISTINCT u) AS units, count(DISTINCT m) AS messages
RETURN x.kind AS kind, units > 0 AS whole, messages > 0 AS said"""


def _turns() -> list[MessageInput]:
    speakers = ("Ann", "Bob")
    return [
        MessageInput(
            speaker=speakers[i % 2],
            content=f"Turn {i}: I keep thinking about {TOPICS[i // 48]}, detail number {i} of it.",
        )
        for i in range(MESSAGES)
    ]


class Graph:
    """The committed state, read over Bolt as another process would."""

    def __init__(self, graph_db: TestDatabase) -> None:
        self._graph_db = graph_db

    async def read(self, query: str, **params: str) -> list[dict[str, object]]:
        """The rows of ``query``."""
        auth = (self._graph_db.user, self._graph_db.password)

        def run() -> list[dict[str, object]]:
            with neo4j.GraphDatabase.driver(self._graph_db.bolt_uri, auth=auth) as driver:
                records, _, _ = driver.execute_query(query, params, database_=self._graph_db.name)
                return [dict(r) for r in records]

        return await asyncio.to_thread(run)

    async def units(self, session_id: str) -> int:
        """How many MemUnits the session has; asserts that each has its messages."""
        row = (await self.read(UNITS, session=session_id))[0]
        assert row["empty"] == 0, row
        return int(str(row["units"]))

    async def assert_whole(self, session_id: str, user_id: str) -> Counter[str]:
        """Nothing half-written or written twice; the user's extracted memories by kind."""
        state = (await self.read(STATE, session=session_id))[0]
        assert state["messages"] == MESSAGES, state  # stored before the job was queued
        assert state["twice"] == 0, state  # no message in two MemUnits
        await self.units(session_id)
        kinds: Counter[str] = Counter()
        for row in await self.read(MEMORIES, user=user_id):
            assert row["whole"], row  # every extracted memory with its MemUnit
            if row["kind"] != "episodic":
                assert row["said"], row  # facts, events, profile: with their message
            kinds[str(row["kind"])] += 1
        return kinds


async def _session(runtime: Runtime, user_id: str, name: str) -> str:
    await runtime.services.users.create_user(SETTINGS_ADMIN, user_id, name)
    return (await runtime.services.users.create_session(SETTINGS_ADMIN, user_id, "chat")).id


async def test_a_worker_killed_mid_memorize_leaves_whole_writes_and_the_job_finishes(
    runtime: Runtime,
    settings: Settings,
    graph_db: TestDatabase,
    tmp_path: Path,
) -> None:
    if graph_db.server != "neo4j":
        pytest.skip("on the ArcadeDB run the serve process is killed instead")
    graph = Graph(graph_db)
    services = runtime.services
    session_id = await _session(runtime, "ann", "Ann")
    outcome = await services.memorize.memorize(
        SETTINGS_ADMIN,
        MemorizeRequest(
            user_ids=("ann",), session_id=session_id, messages=tuple(_turns()), run_async=True
        ),
    )
    assert outcome.job is not None
    job_id = outcome.job.id
    env = worker_env(
        settings, graph_db, tmp_path / "data", {"HIPPOGRAPH_JOBS__LEASE_S": str(LEASE_S)}
    )
    kills: list[int] = []  # MemUnits committed when each kill landed
    for attempt in range(1, KILLS + 1):
        worker = await WorkerProcess.start(
            [str(HIPPOGRAPH), "worker"], env, tmp_path / f"worker{attempt}.log"
        )
        before = await graph.units(session_id)

        async def progressed(before: int = before) -> bool:
            job = await services.jobs.get_job(SETTINGS_ADMIN, job_id)
            return job.status is JobStatus.SUCCEEDED or await graph.units(session_id) > before

        await wait_until(progressed, "the worker to write a MemUnit", [worker], within=120)
        assert await worker.kill() == -signal.SIGKILL
        job = await services.jobs.get_job(SETTINGS_ADMIN, job_id)
        await graph.assert_whole(session_id, "ann")
        if job.status is JobStatus.SUCCEEDED:
            break  # it finished between the check and the kill
        assert job.status is JobStatus.RUNNING, job
        kills.append(await graph.units(session_id))
        # Nothing here delivers the job again: once the dead worker's lease
        # has run out, the next worker's lease sweep does (arq's own
        # delivery would come only after its timeout, 600 s and more).
    # Not a burst worker: the killed workers' deliveries stay on arq's
    # queue until arq's own timeout for them (the 600 s time limit and
    # more) passes, and a burst worker waits for those.
    last = await WorkerProcess.start([str(HIPPOGRAPH), "worker"], env, tmp_path / "last.log")

    async def finished() -> bool:
        return (await services.jobs.get_job(SETTINGS_ADMIN, job_id)).finished

    await wait_until(finished, "the last worker to finish the job", [last], within=120)
    await last.stop()
    assert "Traceback" not in last.output(), last.output()
    assert kills, "no kill landed mid-job"
    assert kills == sorted(kills), kills  # each worker resumed where the last stopped
    done = await services.jobs.get_job(SETTINGS_ADMIN, job_id)
    assert (done.status, done.error) == (JobStatus.SUCCEEDED, None), done
    assert done.attempts == len(kills) + 1, done
    interrupted = await graph.assert_whole(session_id, "ann")

    # The same messages memorized without interruption, for another user.
    reference = await _session(runtime, "ref", "Ann")
    await services.memorize.memorize(
        SETTINGS_ADMIN,
        MemorizeRequest(
            user_ids=("ref",), session_id=reference, messages=tuple(_turns()), run_async=False
        ),
    )
    assert await graph.units(session_id) == await graph.units(reference)
    assert interrupted == await graph.assert_whole(reference, "ref")
