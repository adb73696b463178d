"""How background jobs run: where, for how long, and how a dead runner's job is taken over.

A part of ``Settings`` (``HIPPOGRAPH_JOBS__*``), in its own module as the
embedding settings are.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class JobSettings(BaseModel):
    """Where background jobs run: in this process (embedded) or on arq workers (Redis)."""

    mode: Literal["inprocess", "arq"] = "inprocess"
    queue: str = "hippograph"
    poll_delay_s: float = Field(default=0.05, gt=0)
    timeout_s: float = Field(
        default=600.0, gt=0, description="the longest one run of a job may take"
    )
    lease_s: float = Field(
        default=30.0,
        gt=0,
        description="how long a job's claim outlives a runner that stopped renewing it (renewed "
        "every third of it): past it, the workers' sweep delivers the job again and the next "
        "worker takes it over",
    )
    max_tries: int = Field(
        default=3,
        ge=1,
        description="tries of a job: arq's deliveries, and each run's tries when the graph is "
        "unreachable or contended for longer than its own retries",
    )
    keep_result_s: float = Field(
        default=3600.0,
        ge=0,
        description="how long arq keeps a run's result in Redis (the job's record is in the graph)",
    )
    metrics_port: int = Field(
        default=9100, ge=0, le=65535, description="the worker's /metrics port (0: none)"
    )
