"""The user tools: create a user, list the users a key sees, list what a user's memory
holds, forget a user.

An agent that reaches HippoGraph only through MCP starts with nothing: it
must be able to make the user it remembers for, to see that user's
memories page by page (search answers a question; this answers "what do
you know about me?"), and to forget a user who asks for it.
"""

from __future__ import annotations

from typing import Annotated, Any

from hippograph_client import AsyncHippoGraph, MemoryFilter, MemoryKind, NotFound
from pydantic import Field

from hippograph.mcp.toolkit import After, UserId, tool


@tool(
    "Create a user to remember things for (an admin key, or a key limited to that user "
    "id). Their name is how memorize tells their messages from others'."
)
async def create_user(
    client: AsyncHippoGraph,
    user_id: UserId,
    name: Annotated[str, Field(description="The user's name, as they speak in messages.")],
) -> dict[str, Any]:
    return {"user": await client.create_user(user_id, name)}


@tool("The users this API key may see (every user for an admin key).", read_only=True)
async def list_users(
    client: AsyncHippoGraph,
    first: Annotated[int, Field(description="How many users per page.")] = 20,
    after: After = None,
) -> Any:
    return await client.users(first=first, after=after)


@tool("A user's current memories, newest first, a page at a time.", read_only=True)
async def list_memories(
    client: AsyncHippoGraph,
    user_id: UserId,
    kinds: Annotated[
        list[MemoryKind] | None, Field(description="Only these kinds (default: every kind).")
    ] = None,
    first: Annotated[int, Field(description="How many memories per page.")] = 20,
    after: After = None,
) -> Any:
    only = MemoryFilter(kinds=tuple(kinds)) if kinds else None
    page = await client.memories(user_id, filter=only, first=first, after=after)
    # An admin's page of a user that does not exist is empty: say so instead.
    if not page.memories and await client.user(user_id) is None:
        raise NotFound("NOT_FOUND", f"user {user_id!r} not found", "userId")
    return page


@tool(
    "Forget a user who asks for it: their conversations, their memories and everything "
    "derived only from these, then the user. A dry run by default: it reports what would "
    "go (and how much of it other users drew from their conversations).",
    destructive=True,
)
async def delete_user(
    client: AsyncHippoGraph,
    user_id: UserId,
    dry_run: Annotated[
        bool, Field(description="True (the default) only reports what would go; false deletes.")
    ] = True,
) -> Any:
    return await client.delete_user(user_id, dry_run=dry_run)


TOOLS = (create_user, list_users, list_memories, delete_user)
