"""Job records: created once per id, then moved through their statuses."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from neo4j import AsyncManagedTransaction

from graph.cypher import cypher, locked
from graph.driver import GraphDriver, fetch
from graph.records import Props, to_utc, to_utc_or_none
from hippograph.jobs import Job, JobKind, JobStatus, LapsedRun, QueuedRun

if TYPE_CHECKING:
    from hippograph.services.job_payloads import JobPayload


class PayloadCodec(Protocol):
    """How a job's typed payload is stored as text and read back.

    Handed in by the composition root (``hippograph.services.job_payloads``
    is one), so the graph does not import the services that declare the
    payloads.
    """

    def encode_payload(self, work: JobPayload) -> str: ...
    def decode_payload(self, kind: JobKind, stored: str | None) -> JobPayload: ...


JOB_MAP = (
    "{.id, .kind, .status, .user_ids, .params, .created_at, .started_at, .finished_at,"
    " .attempts, .counts, .error, .prompt_tokens, .completion_tokens, .llm_calls, .cursor,"
    " .progress}"
)
CREATE_JOB = cypher(
    "jobs.CREATE_JOB",
    "CREATE (j:Job) SET j = $props RETURN j " + JOB_MAP + " AS props",
)
# Every write that depends on a job's status or attempt tests it under the
# job node's write lock (graph.cypher.locked): two workers starting one job,
# or a stalled run finishing or renewing a job another has taken over, would
# otherwise both write (tests/graph/test_job_lease.py).
_LOCKED_JOB = "MATCH (j:Job {id: $id}) " + locked("j")
# Submitting a failed job again is how it is retried (after an LLM outage, say).
REQUEUE_FAILED_JOB = cypher(
    "jobs.REQUEUE_FAILED_JOB",
    _LOCKED_JOB + "WHERE j.status = 'failed' "
    "SET j.status = 'queued', j.error = null, j.finished_at = null, j.queued_at = $now "
    "RETURN j " + JOB_MAP + " AS props",
)
GET_JOBS = cypher(
    "jobs.GET_JOBS",
    "UNWIND $ids AS id MATCH (j:Job {id: id}) RETURN j " + JOB_MAP + " AS props",
)
# A finished job is not started again, nor a running one while its lease
# lasts (its runner renews it, RENEW_JOB): a duplicate delivery is then a
# no-op. A job whose runner died is taken over once the lease has run out.
START_JOB = cypher(
    "jobs.START_JOB",
    _LOCKED_JOB + "WHERE j.status = 'queued' "
    "OR (j.status = 'running' AND coalesce(j.renewed_at, j.started_at) < $stale_before) "
    "SET j.status = 'running', j.started_at = $now, j.renewed_at = $now, "
    "j.attempts = coalesce(j.attempts, 0) + 1, j.error = null "
    "RETURN j " + JOB_MAP + " AS props",
)
# Only the run that holds the lease renews it: its attempt is the job's last.
RENEW_JOB = cypher(
    "jobs.RENEW_JOB",
    _LOCKED_JOB + "WHERE j.status = 'running' AND j.attempts = $attempt "
    "SET j.renewed_at = $now RETURN j.id AS id",
)
# Only the run whose attempt is the job's last records how it ended: a run
# that stalled past its lease, while another took the job over, must not
# mark it finished under the run that is still going.
FINISH_JOB = cypher(
    "jobs.FINISH_JOB",
    _LOCKED_JOB + "WHERE j.attempts = $attempt "
    "SET j.status = $status, j.finished_at = $now, "
    "j.counts = $counts, j.error = $error, j.prompt_tokens = $prompt_tokens, "
    "j.completion_tokens = $completion_tokens, j.llm_calls = $llm_calls "
    "RETURN j " + JOB_MAP + " AS props",
)
# Embedded mode has one process: a job it left running at a crash has no runner.
REQUEUE_RUNNING_JOBS = cypher(
    "jobs.REQUEUE_RUNNING_JOBS",
    "MATCH (j:Job) WHERE j.status = 'running' SET j.status = 'queued', j.queued_at = $now "
    "RETURN count(j) AS n",
)
# A run interrupted by its runner (shutdown, cancellation) goes back in the
# queue, unless another run has taken the job over meanwhile.
REQUEUE_JOB = cypher(
    "jobs.REQUEUE_JOB",
    _LOCKED_JOB + "WHERE j.status = 'running' AND j.attempts = $attempt "
    "SET j.status = 'queued', j.queued_at = $now RETURN j.id AS id",
)
# Running jobs whose runner has stopped renewing the lease (its process died
# or froze): a worker sweep delivers each again, so another worker takes it
# over after one lease rather than after the transport's own timeout.
LAPSED_JOBS = cypher(
    "jobs.LAPSED_JOBS",
    "MATCH (j:Job) WHERE j.status = 'running' "
    "AND coalesce(j.renewed_at, j.started_at) < $stale_before "
    "RETURN j.id AS id, coalesce(j.attempts, 0) AS attempts, "
    "coalesce(j.renewed_at, j.started_at) AS renewed_at "
    "ORDER BY j.created_at ASC LIMIT $limit",
)
# Jobs queued for longer than a lease, which may have no delivery on their
# way (JobService.redeliver_queued). `queued_at` is when the job was last
# put in the queue; a record written before it was kept has its creation.
QUEUED_JOBS = cypher(
    "jobs.QUEUED_JOBS",
    "MATCH (j:Job) WHERE j.status = 'queued' "
    "AND coalesce(j.queued_at, j.created_at) < $stale_before "
    "RETURN j.id AS id, coalesce(j.attempts, 0) AS attempts, "
    "coalesce(j.queued_at, j.created_at) AS queued_at "
    "ORDER BY j.created_at ASC LIMIT $limit",
)
# A sweep's new delivery of a queued job restarts its time in the queue.
# Under the node's write lock, and only while still queued that long, so of
# two workers sweeping at once one delivers it, and none once a run took it.
STAMP_QUEUED_JOB = cypher(
    "jobs.STAMP_QUEUED_JOB",
    _LOCKED_JOB + "WHERE j.status = 'queued' AND coalesce(j.attempts, 0) = $attempt "
    "AND coalesce(j.queued_at, j.created_at) < $stale_before "
    "SET j.queued_at = $now RETURN j.id AS id",
)
UNFINISHED_JOBS = cypher(
    "jobs.UNFINISHED_JOBS",
    "MATCH (j:Job) WHERE j.status IN ['queued', 'running'] "
    "RETURN j.id AS id ORDER BY j.created_at ASC LIMIT $limit",
)


def job_from(p: Props, codec: PayloadCodec) -> Job:
    """A ``Job`` from its projection (params and counts are stored as JSON text)."""
    return Job(
        id=p["id"],
        status=JobStatus(p["status"]),
        user_ids=tuple(p.get("user_ids") or ()),
        params=codec.decode_payload(JobKind(p["kind"]), p.get("params")),
        created_at=to_utc(p["created_at"]),
        started_at=to_utc_or_none(p.get("started_at")),
        finished_at=to_utc_or_none(p.get("finished_at")),
        attempts=int(p.get("attempts") or 0),
        counts=json.loads(p.get("counts") or "{}"),
        error=p.get("error"),
        prompt_tokens=int(p.get("prompt_tokens") or 0),
        completion_tokens=int(p.get("completion_tokens") or 0),
        llm_calls=int(p.get("llm_calls") or 0),
        cursor=p.get("cursor") or "",
        progress=json.loads(p.get("progress") or "{}"),
    )


class JobGraph:
    """Job records in the graph."""

    def __init__(self, graph: GraphDriver, codec: PayloadCodec) -> None:
        self._graph = graph
        self._codec = codec

    def _job(self, props: Props) -> Job:
        return job_from(props, self._codec)

    async def submit(self, job: Job) -> tuple[Job, bool]:
        """Store ``job`` unless its id exists (a failed one is queued again).

        Returns the stored record and whether it now needs running: True when
        it was created or re-queued, False when it is queued, running or done.
        """
        props: dict[str, Any] = {
            "id": job.id,
            "kind": job.kind.value,
            "status": job.status.value,
            "user_ids": list(job.user_ids),
            "params": self._codec.encode_payload(job.params),
            "created_at": job.created_at,
            "attempts": 0,
            "counts": "{}",
            "queued_at": job.created_at,
        }

        async def work(tx: AsyncManagedTransaction) -> tuple[Job, bool]:
            found = await fetch(tx, GET_JOBS, {"ids": [job.id]})
            if found:
                requeued = await fetch(
                    tx, REQUEUE_FAILED_JOB, {"id": job.id, "now": job.created_at}
                )
                if requeued:
                    return self._job(requeued[0]["props"]), True
                return self._job(found[0]["props"]), False
            rows = await fetch(tx, CREATE_JOB, {"props": props})
            return self._job(rows[0]["props"]), True

        return await self._graph.write(work, merge_only=True)

    async def get_jobs(self, ids: list[str]) -> dict[str, Job]:
        """The jobs among ``ids``, by id."""
        rows = await self._graph.query(GET_JOBS, {"ids": ids})
        return {row["props"]["id"]: self._job(row["props"]) for row in rows}

    async def start(self, job_id: str, now: datetime, stale_before: datetime) -> Job | None:
        """Mark a job running (one more attempt); None if it is finished, missing, or
        running with a lease taken or renewed after ``stale_before``."""

        async def work(tx: AsyncManagedTransaction) -> Job | None:
            params = {"id": job_id, "now": now, "stale_before": stale_before}
            rows = await fetch(tx, START_JOB, params)
            return self._job(rows[0]["props"]) if rows else None

        return await self._graph.write(work)

    async def renew(self, job_id: str, attempt: int, now: datetime) -> bool:
        """Extend the lease of run ``attempt``; False if that run no longer holds it
        (the job finished, went back to the queue, or another run took it over)."""
        params = {"id": job_id, "attempt": attempt, "now": now}
        return bool(await self._graph.write_rows(RENEW_JOB, params))

    async def finish(
        self,
        job_id: str,
        attempt: int,
        status: JobStatus,
        now: datetime,
        counts: Mapping[str, int],
        error: str | None,
        usage: Mapping[str, int],
    ) -> Job | None:
        """Record how run ``attempt`` of a job ended; None if the job is gone or that
        run no longer holds it (another run took it over)."""
        params = {
            "id": job_id,
            "attempt": attempt,
            "status": status.value,
            "now": now,
            "counts": json.dumps(dict(counts), sort_keys=True),
            "error": error,
            "prompt_tokens": usage.get("prompt_tokens", 0),
            "completion_tokens": usage.get("completion_tokens", 0),
            "llm_calls": usage.get("calls", 0),
        }

        async def work(tx: AsyncManagedTransaction) -> Job | None:
            rows = await fetch(tx, FINISH_JOB, params)
            return self._job(rows[0]["props"]) if rows else None

        return await self._graph.write(work)

    async def requeue(self, job_id: str, attempt: int, now: datetime) -> bool:
        """Put a job that run ``attempt`` holds back in the queue at ``now``; False if it
        is not running or another run holds it."""
        params = {"id": job_id, "attempt": attempt, "now": now}
        return bool(await self._graph.write_rows(REQUEUE_JOB, params))

    async def requeue_running(self, now: datetime) -> int:
        """Put every running job back in the queue at ``now`` (only for a single-process
        runner)."""
        rows = await self._graph.write_rows(REQUEUE_RUNNING_JOBS, {"now": now})
        return int(rows[0]["n"]) if rows else 0

    async def unfinished(self, limit: int = 1000) -> list[str]:
        """Ids of jobs queued or running (to resume after a restart), oldest first."""
        rows = await self._graph.query(UNFINISHED_JOBS, {"limit": limit})
        return [row["id"] for row in rows]

    async def lapsed(self, stale_before: datetime, limit: int = 100) -> list[LapsedRun]:
        """Running jobs whose lease was last taken or renewed before ``stale_before``,
        oldest first."""
        params = {"stale_before": stale_before, "limit": limit}
        rows = await self._graph.query(LAPSED_JOBS, params)
        return [
            LapsedRun(row["id"], int(row["attempts"]), to_utc(row["renewed_at"])) for row in rows
        ]

    async def queued_before(self, stale_before: datetime, limit: int = 100) -> list[QueuedRun]:
        """Queued jobs last put in the queue before ``stale_before``, oldest first."""
        params = {"stale_before": stale_before, "limit": limit}
        rows = await self._graph.query(QUEUED_JOBS, params)
        return [
            QueuedRun(row["id"], int(row["attempts"]), to_utc(row["queued_at"])) for row in rows
        ]

    async def stamp_queued(
        self, job_id: str, attempt: int, stale_before: datetime, now: datetime
    ) -> bool:
        """Mark a job queued again at ``now`` for a new delivery; False unless it is
        still queued, after ``attempt`` runs, since before ``stale_before``."""
        params = {"id": job_id, "attempt": attempt, "stale_before": stale_before, "now": now}
        return bool(await self._graph.write_rows(STAMP_QUEUED_JOB, params))
