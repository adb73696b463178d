"""Background jobs as clients see them: status, counts, errors, LLM tokens."""

from __future__ import annotations

from datetime import datetime

import strawberry

from hippograph import jobs
from schema.forgetting import ForgetCounts

strawberry.enum(jobs.JobKind, description="What a job does.")
strawberry.enum(jobs.JobStatus, description="Where a job is: queued, running, succeeded, failed.")


@strawberry.type(description="What a job made (or has made so far).")
class JobCounts:
    messages: int = strawberry.field(description="Messages cut into MemUnits.")
    memunits: int = strawberry.field(description="MemUnits created.")
    memories: int = strawberry.field(description="Memories created.")
    superseded: int = strawberry.field(description="Profile memories a new value superseded.")
    pending: int = strawberry.field(description="Messages held for the next call (flush false).")
    reflections: int = strawberry.field(default=0, description="Reflections created.")
    consolidated: int = strawberry.field(
        default=0, description="Memories a new reflection summarises (now consolidated)."
    )


@strawberry.type(description="Tokens an LLM used for a job (zero with the offline extractor).")
class TokenUsage:
    prompt_tokens: int
    completion_tokens: int
    calls: int


@strawberry.type(description="A background job. Poll `job(id)` until `status` is final.")
class Job:
    id: strawberry.ID
    kind: jobs.JobKind
    status: jobs.JobStatus
    user_ids: list[strawberry.ID]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    attempts: int
    counts: JobCounts
    error: str | None = strawberry.field(description="Why the job failed, when it did.")
    usage: TokenUsage
    forget_counts: ForgetCounts | None = strawberry.field(
        description="A forget run's report so far (its counters as of its last committed page)."
    )

    @classmethod
    def of(cls, job: jobs.Job) -> Job:
        """The GraphQL view of a job record."""
        return cls(
            id=strawberry.ID(job.id),
            kind=job.kind,
            status=job.status,
            user_ids=[strawberry.ID(u) for u in job.user_ids],
            created_at=job.created_at,
            started_at=job.started_at,
            finished_at=job.finished_at,
            attempts=job.attempts,
            counts=JobCounts(
                messages=job.counts.get("messages", 0),
                memunits=job.counts.get("memunits", 0),
                memories=job.counts.get("memories", 0),
                superseded=job.counts.get("superseded", 0),
                pending=job.counts.get("pending", 0),
                reflections=job.counts.get("reflections", 0),
                consolidated=job.counts.get("consolidated", 0),
            ),
            error=job.error,
            usage=TokenUsage(
                prompt_tokens=job.prompt_tokens,
                completion_tokens=job.completion_tokens,
                calls=job.llm_calls,
            ),
            forget_counts=(
                ForgetCounts.of(job.counts if job.finished and job.counts else job.progress)
                if job.kind is jobs.JobKind.FORGET
                else None
            ),
        )
