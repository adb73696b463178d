"""Every kind of job's payload, the one codec that stores them, and who handles each.

Each payload is declared beside the service that does the work (``MemorizeJob``
in services/memorize.py, ...) and carries its kind, so a job's parameters are
one typed value from submission to handler, whichever runner takes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, assert_never

from pydantic import Field, TypeAdapter

from hippograph.jobs import Job, JobKind
from hippograph.services.forgetting import ForgetJob, ForgetService
from hippograph.services.job_runner import JobResult
from hippograph.services.memorize import MemorizeJob, MemorizeService
from hippograph.services.reflection import ReflectionService, ReflectJob

JobPayload = Annotated[MemorizeJob | ReflectJob | ForgetJob, Field(discriminator="kind")]

_CODEC: TypeAdapter[JobPayload] = TypeAdapter(JobPayload)


def encode_payload(work: JobPayload) -> str:
    """A payload as the JSON text a job record stores."""
    return _CODEC.dump_json(work).decode()


def decode_payload(kind: JobKind, stored: str | None) -> JobPayload:
    """The payload a job record stores (``pydantic.ValidationError`` if it is malformed).

    The record's own kind decides: those written before payloads were typed
    have none in their JSON.
    """
    raw = json.loads(stored or "{}")
    if not isinstance(raw, dict):
        raise ValueError(f"a {kind.value} job's parameters must be a JSON object")
    return _CODEC.validate_python(raw | {"kind": kind.value})


@dataclass(frozen=True, slots=True)
class JobHandlers:
    """The service that does each kind of job: what a runner calls with a job."""

    memorize: MemorizeService
    reflection: ReflectionService
    forgetting: ForgetService

    async def __call__(self, job: Job) -> JobResult:
        """Do ``job``'s work with its typed payload."""
        work = job.params
        if isinstance(work, MemorizeJob):
            return await self.memorize.run_job(work)
        if isinstance(work, ReflectJob):
            return await self.reflection.run_job(job, work)
        if isinstance(work, ForgetJob):
            return await self.forgetting.run_job(job, work)
        assert_never(work)
