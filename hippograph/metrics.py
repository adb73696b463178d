"""Prometheus metrics: request latency by operation, jobs, and what the graph holds.

Each runtime has its own registry (tests start many in one process; the
global default registry would refuse the second). The API serves it at
``/metrics``; a worker serves its own on ``HIPPOGRAPH_JOBS__METRICS_PORT``,
since the jobs it runs are counted in its process.

Memory and job counts are read from the graph at scrape time, at most once
per ``counts_ttl_s``: they are the truth whichever process did the work.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)

from graph.stats import GraphCounts
from hippograph.jobs import JobKind, JobStatus

log = logging.getLogger(__name__)

# Without this, every counter and histogram series comes with a
# ``<name>_created`` gauge holding the second it was first seen: as many
# series again to store, and nothing a dashboard or an alert here reads.
# The switch is the library's own and global; this module is imported
# before any metric is exported.
disable_created_metrics()  # type: ignore[no-untyped-call]  # the library leaves it unannotated

# GraphQL answers from about a millisecond (a cached lookup) to tens of
# seconds (a large synchronous memorize).
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
_JOB_BUCKETS = (0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600)


class Metrics:
    """The metrics of one process and the registry that exposes them."""

    def __init__(
        self,
        counts: Callable[[], Awaitable[GraphCounts]] | None = None,
        *,
        counts_ttl_s: float = 15.0,
    ) -> None:
        self.registry = CollectorRegistry()
        self.requests = Histogram(
            "hippograph_request_duration_seconds",
            "HTTP request latency by GraphQL operation (type:root field) or route",
            ["operation", "status"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.rate_limited = Counter(
            "hippograph_rate_limited_requests",
            "Requests refused with 429 because their key was over its rate",
            registry=self.registry,
        )
        self.jobs_run = Counter(
            "hippograph_jobs_run",
            "Jobs this process ran, by kind and final status",
            ["kind", "status"],
            registry=self.registry,
        )
        self.job_duration = Histogram(
            "hippograph_job_duration_seconds",
            "How long jobs this process ran took, by kind",
            ["kind"],
            buckets=_JOB_BUCKETS,
            registry=self.registry,
        )
        self.jobs_rejected = Counter(
            "hippograph_jobs_rejected",
            "Queue entries that were not a job (malformed payloads), refused by the worker",
            registry=self.registry,
        )
        self.jobs_redelivered = Counter(
            "hippograph_jobs_redelivered",
            "Runs whose lease lapsed (their runner died or froze), queued again by this "
            "process's lease sweep for another runner to take over",
            registry=self.registry,
        )
        self.jobs_undelivered = Counter(
            "hippograph_jobs_undelivered",
            "Jobs queued for a lease with no delivery in the transport (their submitter died "
            "between its two writes, or arq gave up on them), queued again by this process's "
            "sweep",
            registry=self.registry,
        )
        self.subscriptions = Gauge(
            "hippograph_subscriptions_open",
            "Live-update listeners open in this process (one per running subscription)",
            registry=self.registry,
        )
        self.events_unpublished = Counter(
            "hippograph_events_unpublished",
            "Live-update events that could not be published (their write went through)",
            registry=self.registry,
        )
        self.memories = Gauge(
            "hippograph_memories",
            "Memories in the graph, by kind, level and soft deletion",
            ["kind", "level", "deleted"],
            registry=self.registry,
        )
        self.jobs = Gauge(
            "hippograph_jobs",
            "Job records in the graph, by kind and status",
            ["kind", "status"],
            registry=self.registry,
        )
        self._counts = counts
        self._counts_ttl_s = counts_ttl_s
        self._counts_read = -float("inf")
        self._counts_lock = asyncio.Lock()

    def job_finished(self, kind: JobKind, status: JobStatus, seconds: float) -> None:
        """Count a job this process ran (the job service calls this)."""
        self.jobs_run.labels(kind.value, status.value).inc()
        self.job_duration.labels(kind.value).observe(seconds)

    async def refresh_counts(self) -> None:
        """Read memory and job counts from the graph unless read in the last ``counts_ttl_s``.

        A graph that does not answer leaves the last counts in place: metrics
        must still be served when the graph is down, that is when they matter.
        """
        if self._counts is None:
            return
        async with self._counts_lock:
            if time.monotonic() - self._counts_read < self._counts_ttl_s:
                return
            try:
                counts = await self._counts()
            except Exception as exc:
                log.warning("memory and job counts not refreshed: %s", exc)
                return
            self._counts_read = time.monotonic()
        self.memories.clear()
        for (kind, level, deleted), n in counts.memories.items():
            self.memories.labels(kind, level, str(deleted).lower()).set(n)
        self.jobs.clear()
        for (kind, status), n in counts.jobs.items():
            self.jobs.labels(kind, status).set(n)

    def watch_subscriptions(self, count: Callable[[], int]) -> None:
        """Read the open subscriptions from ``count`` at each scrape."""
        self.subscriptions.set_function(count)

    def exposition(self) -> bytes:
        """The registry in Prometheus' text format."""
        return generate_latest(self.registry)
