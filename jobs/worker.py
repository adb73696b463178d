"""The arq worker: ``hippograph worker`` runs job ids from Redis against the graph.

Every job function takes a job id and nothing else; the job's record in the
graph holds its parameters and its status, so a job delivered twice (arq
retries, a resubmission) finds its work done, or its lease live, and returns.
Each worker also sweeps the graph for jobs whose runner stopped renewing its
lease and delivers them again, so a dead worker's job is taken over about one
lease later instead of at arq's own timeout; and for jobs queued for a lease
with no delivery in Redis, which it delivers again.

``jobs.worker.WorkerSettings`` is arq's settings class, built from the
environment when first looked up, so arq's own command line works on it
(``arq jobs.worker.WorkerSettings --check``); ``hippograph worker`` runs a
worker of the same class, built by :func:`worker_settings`.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

from arq import cron
from arq.worker import get_kwargs
from prometheus_client import start_http_server

from hippograph.errors import ConfigError, InvalidInput
from hippograph.ids import IdKind, require_id
from hippograph.runtime import Runtime, sweep_forever
from hippograph.settings import Settings
from jobs.arq_queue import dump_payload, load_payload, redis_settings
from jobs.stopping import CleanStopWorker

log = logging.getLogger(__name__)
_GRACE_S = 30.0


class MalformedJob(ValueError):
    """A queue entry that is not a job id: it fails in arq's results, the queue goes on."""


async def run_job(
    ctx: dict[str, Any], job_id: object = None, *args: object, **kwargs: object
) -> str | None:
    """Run one job by id; returns its final status. (arq names it ``RUN_JOB``.)

    Anything else on the queue — a payload written by another version, by
    hand, or corrupted — is refused loudly (logged, counted, failed in arq
    with the reason) rather than retried: it would fail the same way forever.
    """
    runtime = ctx["runtime"]
    try:
        if args or kwargs or not isinstance(job_id, str):
            raise InvalidInput("run_job takes exactly one job id")
        require_id(job_id, IdKind.JOB, "job_id")
    except InvalidInput as exc:
        runtime.metrics.jobs_rejected.inc()
        log.error(
            "refused a malformed queue entry %s: %s",
            ctx.get("job_id"),
            exc.message,
            extra={"payload": repr((job_id, args, kwargs))[:200]},
        )
        raise MalformedJob(exc.message) from None
    job = await runtime.services.job_runner.run(job_id)
    return None if job is None else str(job.status.value)


async def sweep_reflections(ctx: dict[str, Any]) -> int:
    """The scheduled reflection sweep: queue a reflect run for every user who is due."""
    return len(await ctx["runtime"].services.reflection.sweep())


async def sweep_forgetting(ctx: dict[str, Any]) -> int:
    """The scheduled forgetting pass: queue today's FUZZ run for every user."""
    return len(await ctx["runtime"].services.forgetting.sweep())


# Intervals a cron keeps evenly: minutes that divide an hour, hours that divide a day.
_EVEN = sorted(
    {60 * m for m in (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30)}
    | {3600 * h for h in (1, 2, 3, 4, 6, 8, 12, 24)}
)


def sweep_schedule(interval_s: float) -> tuple[set[int] | None, set[int]]:
    """The cron's hours (None: every hour) and minutes of a sweep every
    ``interval_s`` seconds; ``ConfigError`` for one a cron cannot keep evenly
    (7 minutes would run at :00, :07 … :56 and then :00 again, 4 minutes on)."""
    if interval_s not in _EVEN:
        raise ConfigError(
            f"HIPPOGRAPH_REFLECTION__SWEEP_INTERVAL_S={interval_s:g}: the worker runs the "
            "sweep by cron, which keeps only whole minutes that divide an hour or whole hours "
            f"that divide a day: one of {', '.join(str(s) for s in _EVEN)} (0: no sweep)"
        )
    minutes = round(interval_s / 60)
    if minutes < 60:
        return None, set(range(0, 60, minutes))
    return set(range(0, 24, minutes // 60)), {0}


def require_worker_settings(settings: Settings) -> None:
    """Refuse settings a separate worker process cannot work with (``ConfigError``).

    An embedded ArcadeDB lives inside the API's process: a worker would start
    a second server on the same files instead of reaching the API's graph.
    And with in-process jobs the API queues nothing on Redis, so a worker
    would wait forever.
    """
    if settings.graph.server == "arcadedb" and settings.graph.embedded:
        raise ConfigError(
            "the worker cannot use the embedded ArcadeDB: it lives inside the API's process. "
            "Use a graph server (HIPPOGRAPH_GRAPH__SERVER=neo4j with HIPPOGRAPH_GRAPH__URI, or "
            "ArcadeDB in server mode with HIPPOGRAPH_GRAPH__EMBEDDED=false, "
            "HIPPOGRAPH_GRAPH__URI and HIPPOGRAPH_GRAPH__HTTP_URL), or run no worker and let the "
            "API run its jobs (HIPPOGRAPH_JOBS__MODE=inprocess)"
        )
    if settings.jobs.mode != "arq":
        raise ConfigError(
            "HIPPOGRAPH_JOBS__MODE is 'inprocess': the API runs its jobs itself and queues "
            "nothing on Redis. Set HIPPOGRAPH_JOBS__MODE=arq for both the API and the worker"
        )


async def _startup(ctx: dict[str, Any]) -> None:
    if "runtime" not in ctx:  # else given by the caller (tests share one runtime with the API)
        await _start_runtime(ctx)
    settings: Settings = ctx["settings"]
    runtime = ctx["runtime"]
    services = runtime.services
    lease = timedelta(seconds=settings.jobs.lease_s)

    async def sweep() -> None:
        delivered = await services.jobs.redeliver_lapsed(
            lease, running_here=services.job_runner.in_progress()
        )
        runtime.metrics.jobs_redelivered.inc(len(delivered))
        undelivered = await services.jobs.redeliver_queued(lease)
        runtime.metrics.jobs_undelivered.inc(len(undelivered))

    # arq delivers a dead worker's job again only once its job timeout has
    # passed (the time limit, 10 minutes by default); the graph knows sooner,
    # from the lease no one renews. Every worker sweeps: a lapse found twice
    # is queued once (jobs/arq_queue.py), and the graph lets one run take it.
    # The same sweep finds jobs queued with no delivery in Redis (their
    # submitter died between its two writes, or arq gave up on them).
    # A task of the worker's own rather than an arq cron job: only this
    # process knows which runs are its own, and arq would log a cron run
    # every few seconds.
    ctx["lease_sweep"] = asyncio.create_task(
        sweep_forever("lapsed lease", sweep, settings.jobs.lease_s / 3)
    )


async def _start_runtime(ctx: dict[str, Any]) -> None:
    settings: Settings = ctx["settings"]
    require_worker_settings(settings)
    runtime = await Runtime.start(settings)
    ctx["runtime"] = runtime
    port = settings.jobs.metrics_port
    if port:
        # The jobs this process runs are counted here, so it serves its own
        # /metrics (a thread of prometheus_client's, off the event loop).
        try:
            start_http_server(port, addr=settings.api.host, registry=runtime.metrics.registry)
        except OSError as exc:
            await runtime.stop()
            raise ConfigError(
                f"the worker's metrics port {port} cannot be used ({exc}): give each worker "
                "on this host its own HIPPOGRAPH_JOBS__METRICS_PORT, or 0 for none"
            ) from exc
        log.info("worker metrics on http://%s:%d/metrics", settings.api.host, port)
    ctx["owns_runtime"] = True


async def _shutdown(ctx: dict[str, Any]) -> None:
    sweep = ctx.pop("lease_sweep", None)
    if sweep is not None:
        sweep.cancel()
        await asyncio.gather(sweep, return_exceptions=True)
    if ctx.get("owns_runtime"):
        await ctx["runtime"].stop()


def worker_settings(settings: Settings, *, runtime: Runtime | None = None) -> type:
    """arq's settings class for ``settings``; pass ``runtime`` to reuse a running one.

    Without ``runtime`` the worker starts its own at start-up, and
    :func:`require_worker_settings` must accept ``settings``.
    """
    ctx: dict[str, Any] = {"settings": settings}
    if runtime is not None:
        ctx["runtime"] = runtime
    crons = []
    interval = settings.reflection.sweep_interval_s
    if interval > 0:
        hours, minutes = sweep_schedule(interval)
        crons.append(cron(sweep_reflections, hour=hours, minute=minutes, run_at_startup=False))
    if settings.forgetting.sweep_interval_s > 0:
        # Daily at 03:17 UTC: sweep job ids are per day, so more often adds nothing.
        crons.append(cron(sweep_forgetting, hour={3}, minute={17}, run_at_startup=False))
    attributes: dict[str, Any] = {
        "__doc__": "arq's settings for this process's environment (see jobs/worker.py).",
        "functions": [run_job],
        "cron_jobs": crons,
        "queue_name": settings.jobs.queue,
        "redis_settings": redis_settings(settings.redis.url),
        "on_startup": _startup,
        "on_shutdown": _shutdown,
        "poll_delay": settings.jobs.poll_delay_s,
        # A little longer than the job's time limit, which the runner enforces and
        # records on the job; arq's would cancel it with nothing recorded.
        "job_timeout": settings.jobs.timeout_s + _GRACE_S,
        "max_tries": settings.jobs.max_tries,
        # Outcomes live on the job's record in the graph; arq's copy is kept
        # for an operator's `arq` inspection and then expires, so Redis
        # holds only what is still queued.
        "keep_result": settings.jobs.keep_result_s,
        "job_serializer": dump_payload,
        "job_deserializer": load_payload,
        "ctx": ctx,
    }
    return type("WorkerSettings", (), attributes)


def build_worker(
    settings: Settings,
    *,
    runtime: Runtime | None = None,
    burst: bool = False,
    handle_signals: bool = True,
) -> CleanStopWorker:
    """An arq worker of :func:`worker_settings`' class (what ``hippograph worker`` runs).

    It is a :class:`~jobs.stopping.CleanStopWorker`: a stop that finds a job in
    arq's own bookkeeping ends the process cleanly, the job's outcome written.
    """
    return CleanStopWorker(
        **get_kwargs(worker_settings(settings, runtime=runtime)),
        burst=burst,
        handle_signals=handle_signals,
    )


def __getattr__(name: str) -> type:
    # ``WorkerSettings`` reads the environment when arq's command line looks
    # it up, not when this module is imported (tests import it freely).
    if name == "WorkerSettings":
        return worker_settings(Settings())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
