"""The conversation tools: memorize, search, provenance, reflect, forget, and a job's state.

Each is a call of the typed client (``hippograph/mcp/toolkit.py`` says how it
becomes a tool). Values the schema checks (lengths, ranges, ids) are left to
it, so a tool refuses what the API refuses, with the same code. A message's
time is read here, since the client sends times, not text: one that cannot
be read is ``BAD_USER_INPUT`` naming ``messages[i].ts``, before anything is
stored.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Annotated, Any, cast

from hippograph_client import (
    AsyncHippoGraph,
    BadUserInput,
    Direction,
    ForgetPolicy,
    HardDeleteStrategy,
    HippoGraphError,
    Job,
    MemoryFilter,
    MemoryKind,
    NewMessage,
    NotFound,
    Role,
    SearchMethod,
)
from hippograph_client.options import ForgetOptions
from hippograph_client.waiting import FINISHED
from pydantic import BaseModel, Field

from hippograph.mcp.toolkit import UserId, WaitSeconds, tool

SESSION_TITLE = "mcp"
"""The title of a session memorize starts for an agent that named none."""


class MessageIn(BaseModel):
    """One turn of the conversation to remember."""

    speaker: str = Field(description="Who said it (a name).")
    content: str = Field(description="What was said.")
    role: Role = Field(default=Role.USER, description="The speaker's role.")
    ts: str | None = Field(
        default=None,
        description="When it was said, ISO 8601 with an offset (2024-05-08T13:56:00+00:00); "
        "default now.",
    )
    client_id: str | None = Field(
        default=None, description="Your id for this message: sending it again stores nothing."
    )

    def as_new(self, index: int) -> NewMessage:
        """The client's message (``index``: where it is in the call, for an error)."""
        try:
            ts = None if self.ts is None else datetime.fromisoformat(self.ts)
        except ValueError:
            field = f"messages[{index}].ts"
            raise BadUserInput(
                "BAD_USER_INPUT", f"{field}: not an ISO 8601 time: {self.ts!r}", field
            ) from None
        return NewMessage(self.speaker, self.content, self.role, ts, self.client_id)


def present(**values: Any) -> dict[str, Any]:
    """The options an agent gave: those not None (the rest keep the server's defaults)."""
    return {name: value for name, value in values.items() if value is not None}


async def settled(client: AsyncHippoGraph, job: Job | None, wait_s: float) -> Job | None:
    """``job`` once finished, or as it stands after ``wait_s`` seconds."""
    if job is None or job.status in FINISHED or wait_s <= 0:
        return job
    return await client.settle_job(job.id, wait_s) or job


@tool(
    "Remember new turns of a conversation: store the messages and derive memories "
    "(episodes, facts, profile attributes) from them. Waits up to wait_seconds for the "
    "work to finish and returns the job's state and counts."
)
async def memorize(
    client: AsyncHippoGraph,
    user_id: UserId,
    messages: Annotated[list[MessageIn], Field(description="The new turns, oldest first.")],
    session_id: Annotated[
        str | None,
        Field(
            description="The conversation they belong to; omit it to start one "
            "(its id is in the answer: pass it next time)."
        ),
    ] = None,
    wait_seconds: WaitSeconds = 30,
) -> dict[str, Any]:
    turns = [message.as_new(i) for i, message in enumerate(messages)]
    session = session_id
    if session is None:
        session = (await client.create_session(user_id, SESSION_TITLE)).id
    try:
        result = await client.memorize(user_id, session, turns, wait=False)
    except HippoGraphError:
        if session_id is None:
            await _drop_session(client, session)
        raise
    job = await settled(client, result.job, wait_seconds)
    return {
        "sessionId": session,
        "created": result.created,
        "messages": result.messages,
        "counts": result.counts if job is None else job.counts,
        "job": job,
        "finished": job is None or job.status in FINISHED,
    }


async def _drop_session(client: AsyncHippoGraph, session_id: str) -> None:
    """Delete the empty session a refused memorize started: refused input changes nothing."""
    # expectedDeleted: should the session hold anything by now, nothing is
    # deleted (a conflict), and the session stays with what it holds.
    with contextlib.suppress(HippoGraphError):
        await client.delete_with_provenance(
            session_id, dry_run=False, expected_deleted=[session_id]
        )


@tool(
    "Recall a user's memories relevant to a query, best first. Each hit has its score and "
    "the breakdown of it (semantic, keyword, context, time, entity, recency, importance).",
)
async def search(
    client: AsyncHippoGraph,
    user_id: UserId,
    query: Annotated[str, Field(description="What to recall, in plain words.")],
    top_k: Annotated[int, Field(description="How many memories to return.")] = 10,
    method: Annotated[
        SearchMethod,
        Field(description="HYBRID (meaning and words), VECTOR (meaning) or KEYWORD."),
    ] = SearchMethod.HYBRID,
    kinds: Annotated[
        list[MemoryKind] | None, Field(description="Only memories of these kinds.")
    ] = None,
    touch: Annotated[
        bool, Field(description="Mark the returned memories as recalled (keeps them vivid).")
    ] = True,
) -> Any:
    only = MemoryFilter(kinds=tuple(kinds)) if kinds else None
    return await client.search(
        user_id, query, top_k=top_k, method=method, touch=touch, **present(filter=only)
    )


@tool(
    "Where a memory came from: the messages and MemUnits it was derived from (DOWN), or "
    "what was derived from a node (UP), with every path.",
    read_only=True,
)
async def provenance(
    client: AsyncHippoGraph,
    id: Annotated[str, Field(description="A memory, MemUnit or message id.")],
    depth: Annotated[int, Field(description="How many hops to walk.")] = 4,
    direction: Annotated[
        Direction,
        Field(description="DOWN to the messages it came from, UP to what was derived from it."),
    ] = Direction.DOWN,
) -> Any:
    found = await client.provenance(id, depth=depth, direction=direction)
    if found is None:
        raise NotFound("NOT_FOUND", f"no node {id!r}", "id")
    return found


@tool(
    "Consolidate a user's important facts into reflections (higher-level memories that "
    "summarise them); the resource hippograph://users/{user_id}/reflections lists the latest."
)
async def reflect(
    client: AsyncHippoGraph,
    user_id: UserId,
    force: Annotated[
        bool, Field(description="Skip the one-hour cooldown (not the importance rule).")
    ] = False,
    wait_seconds: WaitSeconds = 30,
) -> dict[str, Any]:
    job = await settled(client, (await client.reflect(user_id, force=force)).job, wait_seconds)
    assert job is not None  # a queued reflect run always has its job
    return {"job": job, "finished": job.status in FINISHED}


@tool(
    "Run the forgetting policy over a user's memories. A dry run by default: it reports "
    "what would change and writes nothing; pass dry_run=false to apply.",
    destructive=True,
)
async def forget(
    client: AsyncHippoGraph,
    user_id: UserId,
    dry_run: Annotated[
        bool, Field(description="Only report what would change (the default). False writes.")
    ] = True,
    policy: Annotated[
        ForgetPolicy,
        Field(
            description="FUZZ moves memories to vaguer levels and deletes nothing; "
            "SOFT_DELETE and HARD_DELETE remove by policy."
        ),
    ] = ForgetPolicy.FUZZ,
    strategy: Annotated[
        HardDeleteStrategy | None,
        Field(description="Required with HARD_DELETE, refused otherwise."),
    ] = None,
    threshold: Annotated[
        float | None, Field(description="IMPORTANCE_BASED: delete below this importance.")
    ] = None,
    max_age_days: Annotated[
        float | None, Field(description="TIME_BASED: delete memories older than this.")
    ] = None,
    max_capacity: Annotated[
        int | None, Field(description="CAPACITY_BASED: keep this many, the most important.")
    ] = None,
    memory_ids: Annotated[list[str] | None, Field(description="Only these memories.")] = None,
) -> Any:
    options = present(
        policy=policy,
        dry_run=dry_run,
        strategy=strategy,
        threshold=threshold,
        max_age_days=max_age_days,
        max_capacity=max_capacity,
        memory_ids=memory_ids,
    )
    return (await client.forget(user_id, **cast(ForgetOptions, options))).report


@tool("A background job's state (status, counts, error).", read_only=True)
async def get_job(
    client: AsyncHippoGraph,
    job_id: Annotated[str, Field(description="A job id (job_…) memorize or reflect gave.")],
) -> Any:
    job = await client.job(job_id)
    if job is None:
        raise NotFound("NOT_FOUND", f"no job {job_id!r}", "jobId")
    return job


TOOLS = (memorize, search, provenance, reflect, forget, get_job)
