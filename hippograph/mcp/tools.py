"""The MCP tools: memorize, search, add/update/delete a memory, provenance, reflect,
forget, create and list users, list a user's memories, and a job's state.

Each tool is a typed function the SDK derives its input schema from (the
``Field`` descriptions are what an agent reads) and runs one GraphQL operation
through the ``Gateway`` as the caller. Values the schema checks (lengths,
ranges, ids, times) are left to it, so a tool refuses exactly what the API
refuses, with the same code.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from hippograph.auth import Principal
from hippograph.mcp import operations as ops
from hippograph.mcp.gateway import ToolFailure
from hippograph.mcp.memory_tools import register_memory_tools
from hippograph.mcp.toolkit import (
    FINISHED,
    After,
    MemoryKind,
    MessageIn,
    Tools,
    UserId,
    WaitSeconds,
    page_of,
)
from hippograph.mcp.user_tools import register_user_tools


def register_tools(server: MCPServer[Any], tools: Tools) -> None:
    """Add every HippoGraph tool to ``server``."""
    gateway = tools.gateway
    register_memory_tools(server, tools)
    register_user_tools(server, tools)

    async def memorize(
        ctx: Context[Any, Any],
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
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            session = session_id
            if session is None:
                created = await gateway.outcome(
                    principal,
                    ops.CREATE_SESSION,
                    {"userId": user_id, "title": "mcp"},
                    "createSession",
                )
                session = str(created["session"]["id"])
            memorize_input = {
                "userIds": [user_id],
                "sessionId": session,
                "messages": [m.as_input() for m in messages],
            }
            try:
                data = await gateway.outcome(
                    principal, ops.MEMORIZE, {"input": memorize_input}, "memorize"
                )
            except ToolFailure:
                if session_id is None:
                    # Refused input changes nothing: not even the session
                    # started for it.
                    await tools.drop_session(principal, session)
                raise
            job = await tools.settle(principal, data["job"], wait_seconds)
            return {
                "sessionId": session,
                "created": data["created"],
                "messages": data["messages"],
                "counts": data["counts"] if job is None else job["counts"],
                "job": job,
                "finished": job is None or job["status"] in FINISHED,
            }

        return await tools.answer(ctx, work)

    server.add_tool(
        memorize,
        description="Remember new turns of a conversation: store the messages and derive "
        "memories (episodes, facts, profile attributes) from them. Waits up to "
        "wait_seconds for the work to finish and returns the job's state and counts.",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )

    async def search(
        ctx: Context[Any, Any],
        user_id: UserId,
        query: Annotated[str, Field(description="What to recall, in plain words.")],
        top_k: Annotated[int, Field(description="How many memories to return.")] = 10,
        method: Annotated[
            Literal["HYBRID", "VECTOR", "KEYWORD"],
            Field(description="HYBRID (meaning and words), VECTOR (meaning) or KEYWORD."),
        ] = "HYBRID",
        kinds: Annotated[
            list[MemoryKind] | None,
            Field(description="Only memories of these kinds."),
        ] = None,
        touch: Annotated[
            bool, Field(description="Mark the returned memories as recalled (keeps them vivid).")
        ] = True,
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            variables = {
                "userId": user_id,
                "query": query,
                "topK": top_k,
                "method": method,
                "filter": {"kinds": kinds} if kinds else None,
                "touch": touch,
            }
            found: dict[str, Any] = (await gateway.run(principal, ops.SEARCH, variables))["search"]
            return found

        return await tools.answer(ctx, work)

    server.add_tool(
        search,
        description="Recall a user's memories relevant to a query, best first. Each hit has "
        "its score and the breakdown of it (semantic, keyword, context, time, entity, "
        "recency, importance).",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )

    async def provenance(
        ctx: Context[Any, Any],
        id: Annotated[str, Field(description="A memory, MemUnit or message id.")],
        depth: Annotated[int, Field(description="How many hops to walk.")] = 4,
        direction: Annotated[
            Literal["DOWN", "UP"],
            Field(description="DOWN to the messages it came from, UP to what was derived from it."),
        ] = "DOWN",
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            variables = {"id": id, "depth": depth, "direction": direction}
            found = (await gateway.run(principal, ops.PROVENANCE, variables))["provenance"]
            if found is None:
                raise ToolFailure("NOT_FOUND", f"no node {id!r}", "id")
            result: dict[str, Any] = found
            return result

        return await tools.answer(ctx, work)

    server.add_tool(
        provenance,
        description="Where a memory came from: the messages and MemUnits it was derived "
        "from (DOWN), or what was derived from a node (UP), with every path.",
        annotations=ToolAnnotations(read_only_hint=True),
    )

    async def reflect(
        ctx: Context[Any, Any],
        user_id: UserId,
        force: Annotated[
            bool, Field(description="Skip the one-hour cooldown (not the importance rule).")
        ] = False,
        wait_seconds: WaitSeconds = 30,
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            data = await gateway.outcome(
                principal, ops.REFLECT, {"userId": user_id, "force": force}, "reflect"
            )
            job = await tools.settle(principal, data["job"], wait_seconds)
            assert job is not None  # a queued reflect run always has its job
            return {"job": job, "finished": job["status"] in FINISHED}

        return await tools.answer(ctx, work)

    server.add_tool(
        reflect,
        description="Consolidate a user's important facts into reflections (higher-level "
        "memories that summarise them); the resource hippograph://users/{user_id}/reflections "
        "lists the latest.",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )

    async def forget(
        ctx: Context[Any, Any],
        user_id: UserId,
        dry_run: Annotated[
            bool,
            Field(description="Only report what would change (the default). False writes."),
        ] = True,
        policy: Annotated[
            Literal["FUZZ", "SOFT_DELETE", "HARD_DELETE"],
            Field(
                description="FUZZ moves memories to vaguer levels and deletes nothing; "
                "SOFT_DELETE and HARD_DELETE remove by policy."
            ),
        ] = "FUZZ",
        strategy: Annotated[
            Literal["IMPORTANCE_BASED", "TIME_BASED", "CAPACITY_BASED"] | None,
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
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            forget_input = {
                "userId": user_id,
                "policy": policy,
                "dryRun": dry_run,
                "strategy": strategy,
                "threshold": threshold,
                "maxAgeDays": max_age_days,
                "maxCapacity": max_capacity,
                "memoryIds": memory_ids,
            }
            return await gateway.outcome(principal, ops.FORGET, {"input": forget_input}, "forget")

        return await tools.answer(ctx, work)

    server.add_tool(
        forget,
        description="Run the forgetting policy over a user's memories. A dry run by default: "
        "it reports what would change and writes nothing; pass dry_run=false to apply.",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True),
    )

    async def list_users(
        ctx: Context[Any, Any],
        first: Annotated[int, Field(description="How many users per page.")] = 20,
        after: After = None,
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            found = await gateway.run(principal, ops.USERS, {"first": first, "after": after})
            return page_of(found["users"], "users")

        return await tools.answer(ctx, work)

    server.add_tool(
        list_users,
        description="The users this API key may see (every user for an admin key).",
        annotations=ToolAnnotations(read_only_hint=True),
    )

    async def get_job(
        ctx: Context[Any, Any],
        job_id: Annotated[str, Field(description="A job id (job_…) memorize or reflect gave.")],
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            job = (await gateway.run(principal, ops.JOB, {"id": job_id}))["job"]
            if job is None:
                raise ToolFailure("NOT_FOUND", f"no job {job_id!r}", "jobId")
            result: dict[str, Any] = job
            return result

        return await tools.answer(ctx, work)

    server.add_tool(
        get_job,
        description="A background job's state (status, counts, error).",
        annotations=ToolAnnotations(read_only_hint=True),
    )
