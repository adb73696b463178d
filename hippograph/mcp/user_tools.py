"""The user tools: create a user, list what a user's memory holds, forget a user.

An agent that reaches HippoGraph only through MCP starts with nothing: it
must be able to make the user it remembers for, to see that user's
memories page by page (search answers a question; this answers "what do
you know about me?"), and to forget a user who asks for it.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from hippograph.auth import Principal
from hippograph.mcp import operations as ops
from hippograph.mcp.gateway import ToolFailure
from hippograph.mcp.toolkit import After, MemoryKind, Tools, UserId, page_of


def register_user_tools(server: MCPServer[Any], tools: Tools) -> None:
    """Add ``create_user``, ``list_memories`` and ``delete_user`` to ``server``."""
    gateway = tools.gateway

    async def create_user(
        ctx: Context[Any, Any],
        user_id: UserId,
        name: Annotated[str, Field(description="The user's name, as they speak in messages.")],
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            created = await gateway.outcome(
                principal, ops.CREATE_USER, {"id": user_id, "name": name}, "createUser"
            )
            user: dict[str, Any] = created["user"]
            return {"user": user}

        return await tools.answer(ctx, work)

    server.add_tool(
        create_user,
        description="Create a user to remember things for (an admin key, or a key limited to "
        "that user id). Their name is how memorize tells their messages from others'.",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )

    async def list_memories(
        ctx: Context[Any, Any],
        user_id: UserId,
        kinds: Annotated[
            list[MemoryKind] | None,
            Field(description="Only these kinds (default: every kind)."),
        ] = None,
        first: Annotated[int, Field(description="How many memories per page.")] = 20,
        after: After = None,
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            variables = {
                "userId": user_id,
                "filter": {"kinds": kinds},
                "first": first,
                "after": after,
            }
            found = await gateway.run(principal, ops.MEMORIES, variables)
            if found["user"] is None:
                raise ToolFailure("NOT_FOUND", f"no user {user_id!r}", "userId")
            return page_of(found["memories"], "memories")

        return await tools.answer(ctx, work)

    server.add_tool(
        list_memories,
        description="A user's current memories, newest first, a page at a time.",
        annotations=ToolAnnotations(read_only_hint=True),
    )

    async def delete_user(
        ctx: Context[Any, Any],
        user_id: UserId,
        dry_run: Annotated[
            bool,
            Field(description="True (the default) only reports what would go; false deletes."),
        ] = True,
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            variables = {"id": user_id, "dryRun": dry_run}
            return await gateway.outcome(principal, ops.DELETE_USER, variables, "deleteUser")

        return await tools.answer(ctx, work)

    server.add_tool(
        delete_user,
        description="Forget a user who asks for it: their conversations, their memories and "
        "everything derived only from these, then the user. A dry run by default: it reports "
        "what would go (and how much of it other users drew from their conversations).",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True),
    )
