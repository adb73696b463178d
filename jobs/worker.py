"""The arq worker: ``hippograph worker`` runs job ids from Redis against the graph.

Every job function takes a job id and nothing else; the job's record in the
graph holds its parameters and its status, so a job delivered twice (arq
retries, a resubmission) finds its work done and returns.
"""

from __future__ import annotations

import logging
from typing import Any

from arq.worker import Worker

from hippograph.server.runtime import Runtime
from hippograph.settings import Settings
from jobs.arq_queue import redis_settings

log = logging.getLogger(__name__)


async def run_job(ctx: dict[str, Any], job_id: str) -> str | None:
    """Run one job by id; returns its final status. (arq names it ``RUN_JOB``.)"""
    job = await ctx["runtime"].services.jobs.run(job_id)
    return None if job is None else str(job.status.value)


async def _startup(ctx: dict[str, Any]) -> None:
    if "runtime" in ctx:
        return  # given by the caller (tests share one runtime with the API)
    ctx["runtime"] = await Runtime.start(ctx["settings"])
    ctx["owns_runtime"] = True


async def _shutdown(ctx: dict[str, Any]) -> None:
    if ctx.get("owns_runtime"):
        await ctx["runtime"].stop()


def build_worker(
    settings: Settings,
    *,
    runtime: Runtime | None = None,
    burst: bool = False,
    handle_signals: bool = True,
) -> Worker:
    """An arq worker for ``settings``; pass ``runtime`` to reuse a running one."""
    ctx: dict[str, Any] = {"settings": settings}
    if runtime is not None:
        ctx["runtime"] = runtime
    return Worker(
        functions=[run_job],
        queue_name=settings.jobs.queue,
        redis_settings=redis_settings(settings.redis.url),
        on_startup=_startup,
        on_shutdown=_shutdown,
        poll_delay=settings.jobs.poll_delay_s,
        job_timeout=settings.jobs.timeout_s,
        max_tries=settings.jobs.max_tries,
        burst=burst,
        handle_signals=handle_signals,
        ctx=ctx,
    )
