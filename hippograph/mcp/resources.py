"""The MCP resources: a user's profile and their latest reflections, as JSON.

Both read ``user(id)`` and ``memories(userId, filter)`` with the caller's
client, so a user the key may not see is "not found", as in GraphQL. A
resource cannot answer ``isError`` as a tool can: errors are JSON-RPC errors
(invalid params) whose data carries GraphQL's code.
"""

from __future__ import annotations

import json
from typing import Any

from hippograph_client import HippoGraphError, MemoryFilter, MemoryKind, NotFound
from hippograph_client.decode import encode
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from hippograph.admission import Refused
from hippograph.mcp.caller import Caller
from hippograph.mcp.inprocess import InProcess

PROFILE_URI = "hippograph://users/{user_id}/profile"
REFLECTIONS_URI = "hippograph://users/{user_id}/reflections"
# Enough to fill an agent's context with the profile, without paging.
PROFILE_ATTRIBUTES = 100
LATEST_REFLECTIONS = 20


def _invalid(uri: str, code: str, message: str, field: str | None = None) -> MCPError:
    data = {"code": code, "message": message, "uri": uri} | ({"field": field} if field else {})
    return MCPError(code=INVALID_PARAMS, message=f"{code}: {message}", data=data)


async def _user_memories(
    connect: InProcess,
    caller: Caller,
    ctx: Context[Any, Any],
    uri: str,
    user_id: str,
    kind: MemoryKind,
    first: int,
) -> tuple[Any, Any]:
    """The user and their newest ``first`` memories of ``kind`` (as JSON), or a JSON-RPC error."""
    try:
        admitted = await caller.admitted(ctx)
        async with connect.client(admitted) as client:
            # The memories first: for a user the key may not see, the API's own answer.
            page = await client.memories(user_id, filter=MemoryFilter(kinds=(kind,)), first=first)
            user = await client.user(user_id)
            if user is None:
                raise NotFound("NOT_FOUND", f"user {user_id!r} not found", "userId")
    except HippoGraphError as exc:
        raise _invalid(uri, exc.code, exc.message, exc.field) from exc
    except Refused as exc:
        raise _invalid(uri, exc.code, exc.message) from exc
    return encode(user), encode(page.memories)


def register_resources(server: MCPServer[Any], connect: InProcess, caller: Caller) -> None:
    """Add the profile and reflections resource templates to ``server``."""

    async def profile(user_id: str, ctx: Context[Any, Any]) -> str:
        uri = PROFILE_URI.format(user_id=user_id)
        user, memories = await _user_memories(
            connect, caller, ctx, uri, user_id, MemoryKind.PROFILE, PROFILE_ATTRIBUTES
        )
        return json.dumps({"user": user, "attributes": memories})

    server.resource(
        PROFILE_URI,
        name="profile",
        description="A user and their profile attributes (what memorize learnt about them: "
        "city, job, preferences…), newest first.",
        mime_type="application/json",
    )(profile)

    async def reflections(user_id: str, ctx: Context[Any, Any]) -> str:
        uri = REFLECTIONS_URI.format(user_id=user_id)
        user, memories = await _user_memories(
            connect, caller, ctx, uri, user_id, MemoryKind.REFLECTION, LATEST_REFLECTIONS
        )
        return json.dumps({"user": user, "reflections": memories})

    server.resource(
        REFLECTIONS_URI,
        name="reflections",
        description=f"A user's latest {LATEST_REFLECTIONS} reflections (the themes reflect "
        "consolidated their facts into), newest first.",
        mime_type="application/json",
    )(reflections)
