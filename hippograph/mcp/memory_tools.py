"""The memory tools: add, update and delete one memory, each a memory operation
(``applyMemoryOps``) of one op, so they are checked and applied as an agent's
batch of operations would be."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from hippograph.auth import Principal
from hippograph.mcp.toolkit import MemoryId, MemoryKind, Tools, UserId


def register_memory_tools(server: MCPServer[Any], tools: Tools) -> None:
    """Add ``add_memory``, ``update_memory`` and ``delete_memory`` to ``server``."""

    async def add_memory(
        ctx: Context[Any, Any],
        user_id: UserId,
        content: Annotated[str, Field(description="The memory's text.")],
        kind: Annotated[
            MemoryKind | None, Field(description="Its kind (default SEMANTIC: a fact).")
        ] = None,
        importance: Annotated[
            float | None, Field(description="How much it matters, 0 to 1.")
        ] = None,
        client_id: Annotated[
            str | None,
            Field(description="Your id for it: adding again with the same id adds nothing."),
        ] = None,
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            op = {
                "op": "ADD",
                "content": content,
                "kind": kind,
                "importance": importance,
                "clientId": client_id,
            }
            result = await tools.memory_ops(principal, user_id, op)
            return {**result, "memory": await tools.memory(principal, result["memoryId"])}

        return await tools.answer(ctx, work)

    server.add_tool(
        add_memory,
        description="Store a memory for a user (a memory operation ADD).",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )

    async def update_memory(
        ctx: Context[Any, Any],
        user_id: UserId,
        memory_id: MemoryId,
        content: Annotated[
            str | None,
            Field(description="New text: makes a new version that supersedes this one."),
        ] = None,
        importance: Annotated[float | None, Field(description="New importance, 0 to 1.")] = None,
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            op = {"op": "UPDATE", "id": memory_id, "content": content, "importance": importance}
            result = await tools.memory_ops(principal, user_id, op)
            return {**result, "memory": await tools.memory(principal, result["memoryId"])}

        return await tools.answer(ctx, work)

    server.add_tool(
        update_memory,
        description="Change a memory (a memory operation UPDATE): new content makes a new "
        "version and the old one is kept as superseded.",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )

    async def delete_memory(
        ctx: Context[Any, Any],
        user_id: UserId,
        memory_id: MemoryId,
        hard: Annotated[
            bool, Field(description="Remove it entirely instead of marking it deleted.")
        ] = False,
    ) -> CallToolResult:
        async def work(principal: Principal) -> dict[str, Any]:
            return await tools.memory_ops(
                principal, user_id, {"op": "DELETE", "id": memory_id, "hard": hard}
            )

        return await tools.answer(ctx, work)

    server.add_tool(
        delete_memory,
        description="Delete a memory (a memory operation DELETE): soft by default.",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True),
    )
