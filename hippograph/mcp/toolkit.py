"""What the MCP tools share: who is calling, how an operation runs and answers,
how a job is waited for, and the parameter types an agent reads."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from hippograph.auth import Principal
from hippograph.errors import HippoError
from hippograph.mcp import operations as ops
from hippograph.mcp.caller import Caller
from hippograph.mcp.gateway import Gateway, ToolFailure
from hippograph.mcp.results import failed, succeeded

UserId = Annotated[
    str, Field(description="The user whose memories these are (list_users names them).")
]
MemoryId = Annotated[str, Field(description="A memory's id (mem_…), as search returns it.")]
WaitSeconds = Annotated[
    float,
    Field(
        ge=0,
        le=120,
        description="How long to wait for the job to finish before answering with its "
        "current state (0: answer at once; poll with get_job).",
    ),
]
MemoryKind = Literal["EPISODIC", "SEMANTIC", "PROFILE", "EVENT", "REFLECTION"]

FINISHED = {"SUCCEEDED", "FAILED"}
_POLL_FIRST_S = 0.1
_POLL_MAX_S = 1.0


After = Annotated[str | None, Field(description="The endCursor of the previous page.")]


def page_of(connection: dict[str, Any], name: str) -> dict[str, Any]:
    """A GraphQL connection as a tool answers it: its nodes under ``name``, and its pageInfo."""
    return {
        name: [edge["node"] for edge in connection["edges"]],
        "pageInfo": connection["pageInfo"],
    }


class MessageIn(BaseModel):
    """One turn of the conversation to remember."""

    speaker: str = Field(description="Who said it (a name).")
    content: str = Field(description="What was said.")
    role: Literal["USER", "ASSISTANT", "SYSTEM", "TOOL"] = Field(
        default="USER", description="The speaker's role."
    )
    ts: str | None = Field(
        default=None,
        description="When it was said, ISO 8601 with an offset (2024-05-08T13:56:00+00:00); "
        "default now.",
    )
    client_id: str | None = Field(
        default=None, description="Your id for this message: sending it again stores nothing."
    )

    def as_input(self) -> dict[str, Any]:
        """The GraphQL ``MessageInput``."""
        return {
            "speaker": self.speaker,
            "content": self.content,
            "role": self.role,
            "ts": self.ts,
            "clientId": self.client_id,
        }


@dataclass(frozen=True)
class Tools:
    """The tools' shared machinery: who is calling, and how to run an operation."""

    gateway: Gateway
    caller: Caller

    async def answer(
        self,
        ctx: Context[Any, Any],
        work: Callable[[Principal], Awaitable[dict[str, Any]]],
    ) -> CallToolResult:
        """Run ``work`` as the caller; an expected error becomes an ``isError`` result."""
        try:
            principal = await self.caller.principal(ctx)
            return succeeded(await work(principal))
        except ToolFailure as failure:
            return failed(failure)
        except HippoError as exc:
            return failed(ToolFailure(exc.code, exc.message))

    async def settle(
        self, principal: Principal, job: dict[str, Any] | None, wait_s: float
    ) -> dict[str, Any] | None:
        """``job`` as it is once finished, or after ``wait_s`` (its state then)."""
        if job is None or job["status"] in FINISHED or wait_s <= 0:
            return job
        deadline = time.monotonic() + wait_s
        pause = _POLL_FIRST_S
        while True:
            await asyncio.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            found = (await self.gateway.run(principal, ops.JOB, {"id": job["id"]}))["job"]
            job = found if found is not None else job
            if job["status"] in FINISHED or time.monotonic() >= deadline:
                return job
            pause = min(pause * 2, _POLL_MAX_S)

    async def drop_session(self, principal: Principal, session_id: str) -> None:
        """Delete the empty session a failed call started (nothing else, ever)."""
        # expectedDeleted: should the session hold anything by now, nothing is
        # deleted (a conflict), and the session stays with what it holds.
        with contextlib.suppress(ToolFailure):
            await self.gateway.outcome(
                principal, ops.DROP_SESSION, {"id": session_id}, "deleteWithProvenance"
            )

    async def memory_ops(
        self, principal: Principal, user_id: str, op: dict[str, Any]
    ) -> dict[str, Any]:
        """Apply one memory operation; the result of it."""
        data = await self.gateway.outcome(
            principal,
            ops.APPLY_MEMORY_OPS,
            {"input": {"userId": user_id, "ops": [op]}},
            "applyMemoryOps",
        )
        result: dict[str, Any] = data["results"][0]
        return result

    async def memory(self, principal: Principal, memory_id: str | None) -> dict[str, Any] | None:
        """The memory ``memory_id`` as the caller sees it."""
        if memory_id is None:
            return None
        found: dict[str, Any] | None = (
            await self.gateway.run(principal, ops.MEMORY, {"id": memory_id})
        )["memory"]
        return found
