"""The memory tools: add, update and delete one memory, each a memory operation
(``applyMemoryOps``) of one op, so they are checked and applied as an agent's
batch of operations would be."""

from __future__ import annotations

from typing import Annotated, Any

from hippograph_client import (
    AsyncHippoGraph,
    BadUserInput,
    MemoryKind,
    MemoryOp,
    MemoryOpKind,
    MemoryOpResult,
    NotFound,
)
from hippograph_client.decode import encode
from pydantic import Field

from hippograph.mcp.toolkit import MemoryId, UserId, tool


async def _applied(client: AsyncHippoGraph, user_id: str, op: MemoryOp) -> dict[str, Any]:
    """What ``op`` did, and the memory it left (the new version of an update)."""
    result = (await client.apply_memory_ops(user_id, [op])).results[0]
    memory = None if result.memory_id is None else await client.memory(result.memory_id)
    return {**encode(result), "memory": memory}


@tool("Store a memory for a user (a memory operation ADD).")
async def add_memory(
    client: AsyncHippoGraph,
    user_id: UserId,
    content: Annotated[str, Field(description="The memory's text.")],
    kind: Annotated[
        MemoryKind | None, Field(description="Its kind (default SEMANTIC: a fact).")
    ] = None,
    importance: Annotated[float | None, Field(description="How much it matters, 0 to 1.")] = None,
    client_id: Annotated[
        str | None,
        Field(description="Your id for it: adding again with the same id adds nothing."),
    ] = None,
) -> dict[str, Any]:
    op = MemoryOp.add(content, kind=kind, importance=importance, client_id=client_id)
    return await _applied(client, user_id, op)


@tool(
    "Change a memory: new content makes a new version (a memory operation UPDATE) and the "
    "old one is kept as superseded; importance alone is changed in place."
)
async def update_memory(
    client: AsyncHippoGraph,
    user_id: UserId,
    memory_id: MemoryId,
    content: Annotated[
        str | None,
        Field(description="New text: makes a new version that supersedes this one."),
    ] = None,
    importance: Annotated[
        float | None,
        Field(description="New importance, 0 to 1: of the new version, or of this one alone."),
    ] = None,
) -> dict[str, Any]:
    if content is not None:
        op = MemoryOp(MemoryOpKind.UPDATE, id=memory_id, content=content, importance=importance)
        return await _applied(client, user_id, op)
    if importance is None:
        raise BadUserInput(
            "BAD_USER_INPUT", "give content (a new version), importance, or both", "content"
        )
    # An UPDATE operation needs content: a change of importance alone is the
    # API's in-place edit, for the user's own memory as an operation would
    # check it.
    found = await client.memory(memory_id)
    if found is None or found.user_id != user_id:
        raise NotFound(
            "NOT_FOUND", f"user {user_id!r} has no memory {memory_id!r}", "memory_id", memory_id
        )
    memory = await client.update_memory(memory_id, importance=importance)
    return {**encode(MemoryOpResult(0, MemoryOpKind.UPDATE, memory.id, None)), "memory": memory}


@tool("Delete a memory (a memory operation DELETE): soft by default.", destructive=True)
async def delete_memory(
    client: AsyncHippoGraph,
    user_id: UserId,
    memory_id: MemoryId,
    hard: Annotated[
        bool, Field(description="Remove it entirely instead of marking it deleted.")
    ] = False,
) -> Any:
    op = MemoryOp.delete(memory_id, hard=hard)
    return (await client.apply_memory_ops(user_id, [op])).results[0]


TOOLS = (add_memory, update_memory, delete_memory)
