"""The MCP resources: a user's profile and their latest reflections, as JSON.

Both read ``user(id)`` and ``memories(userId, filter)`` with the caller's
client, so a user the key may not see is "not found", as in GraphQL. A
resource cannot answer ``isError`` as a tool can: errors are JSON-RPC errors
(invalid params) whose data carries GraphQL's code.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from hippograph_client import HippoGraphError, MemoryFilter, MemoryKind, NotFound
from hippograph_client.decode import encode
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from hippograph.admission import Refused
from hippograph.mcp.toolkit import ToolServer, caller_client

PROFILE_URI = "hippograph://users/{user_id}/profile"
REFLECTIONS_URI = "hippograph://users/{user_id}/reflections"
# Enough to fill an agent's context with the profile, without paging.
PROFILE_ATTRIBUTES = 100
LATEST_REFLECTIONS = 20


def _invalid(uri: str, code: str, message: str, field: str | None = None) -> MCPError:
    data = {"code": code, "message": message, "uri": uri} | ({"field": field} if field else {})
    return MCPError(code=INVALID_PARAMS, message=f"{code}: {message}", data=data)


async def _user_memories(
    ctx: Context[Any, Any], uri: str, user_id: str, kind: MemoryKind, first: int
) -> tuple[Any, Any]:
    """The user and their newest ``first`` memories of ``kind`` (as JSON), or a JSON-RPC error."""
    try:
        async with caller_client(ctx) as client:
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


@dataclass(frozen=True, slots=True)
class UserResource:
    """A resource template: a user and their newest memories of one kind, as JSON."""

    uri: str  # with ``{user_id}``
    name: str
    description: str
    kind: MemoryKind
    first: int
    key: str  # what the memories are called in the JSON


RESOURCES = (
    UserResource(
        PROFILE_URI,
        "profile",
        "A user and their profile attributes (what memorize learnt about them: "
        "city, job, preferences…), newest first.",
        MemoryKind.PROFILE,
        PROFILE_ATTRIBUTES,
        "attributes",
    ),
    UserResource(
        REFLECTIONS_URI,
        "reflections",
        f"A user's latest {LATEST_REFLECTIONS} reflections (the themes reflect "
        "consolidated their facts into), newest first.",
        MemoryKind.REFLECTION,
        LATEST_REFLECTIONS,
        "reflections",
    ),
)


def _reader(resource: UserResource) -> Callable[[str, Context[Any, Any]], Awaitable[str]]:
    # The SDK reads the template's parameters off the function's signature.
    async def read(user_id: str, ctx: Context[Any, Any]) -> str:
        uri = resource.uri.format(user_id=user_id)
        user, memories = await _user_memories(ctx, uri, user_id, resource.kind, resource.first)
        return json.dumps({"user": user, resource.key: memories})

    return read


def register_resources(server: ToolServer) -> None:
    """Add the resource templates of ``RESOURCES`` to ``server``: they reach the API
    through it, as its tools do."""
    for resource in RESOURCES:
        server.resource(
            resource.uri,
            name=resource.name,
            description=resource.description,
            mime_type="application/json",
        )(_reader(resource))
