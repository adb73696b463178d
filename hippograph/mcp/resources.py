"""The MCP resources: a user's profile and their latest reflections, as JSON.

Both read ``user(id)`` and ``memories(userId, filter)`` through the gateway, so
a user the key may not see is "not found", as in GraphQL. A resource cannot
answer ``isError`` as a tool can: errors are JSON-RPC errors (invalid params)
whose data carries GraphQL's code.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from hippograph.errors import HippoError
from hippograph.mcp import operations as ops
from hippograph.mcp.caller import Caller
from hippograph.mcp.gateway import Gateway, ToolFailure

PROFILE_URI = "hippograph://users/{user_id}/profile"
REFLECTIONS_URI = "hippograph://users/{user_id}/reflections"
# Enough to fill an agent's context with the profile, without paging.
PROFILE_ATTRIBUTES = 100
LATEST_REFLECTIONS = 20


async def _user_memories(
    gateway: Gateway,
    caller: Caller,
    ctx: Context[Any, Any],
    uri: str,
    user_id: str,
    kind: str,
    first: int,
) -> dict[str, Any]:
    """The user and their newest ``first`` memories of ``kind``, or a JSON-RPC error."""
    try:
        principal = await caller.principal(ctx)
        data = await gateway.run(
            principal,
            ops.USER_MEMORIES,
            {"userId": user_id, "filter": {"kinds": [kind]}, "first": first},
        )
        if data["user"] is None:
            raise ToolFailure("NOT_FOUND", f"no user {user_id!r}", "userId")
    except ToolFailure as failure:
        raise MCPError(
            code=INVALID_PARAMS, message=str(failure), data={**failure.as_dict(), "uri": uri}
        ) from failure
    except HippoError as exc:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"{exc.code}: {exc.message}",
            data={"code": exc.code, "message": exc.message, "uri": uri},
        ) from exc
    return {"user": data["user"], "memories": [e["node"] for e in data["memories"]["edges"]]}


def register_resources(server: MCPServer[Any], gateway: Gateway, caller: Caller) -> None:
    """Add the profile and reflections resource templates to ``server``."""

    async def profile(user_id: str, ctx: Context[Any, Any]) -> str:
        uri = PROFILE_URI.format(user_id=user_id)
        found = await _user_memories(
            gateway, caller, ctx, uri, user_id, "PROFILE", PROFILE_ATTRIBUTES
        )
        return json.dumps({"user": found["user"], "attributes": found["memories"]})

    server.resource(
        PROFILE_URI,
        name="profile",
        description="A user and their profile attributes (what memorize learnt about them: "
        "city, job, preferences…), newest first.",
        mime_type="application/json",
    )(profile)

    async def reflections(user_id: str, ctx: Context[Any, Any]) -> str:
        uri = REFLECTIONS_URI.format(user_id=user_id)
        found = await _user_memories(
            gateway, caller, ctx, uri, user_id, "REFLECTION", LATEST_REFLECTIONS
        )
        return json.dumps({"user": found["user"], "reflections": found["memories"]})

    server.resource(
        REFLECTIONS_URI,
        name="reflections",
        description=f"A user's latest {LATEST_REFLECTIONS} reflections (the themes reflect "
        "consolidated their facts into), newest first.",
        mime_type="application/json",
    )(reflections)
