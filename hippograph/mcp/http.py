"""``/mcp``: the MCP server over streamable HTTP, behind the API's keys and rate limit.

Every request is authenticated by its ``Authorization: Bearer`` key with the
same ``KeyService`` as ``/graphql`` and counted against the same per-key rate
limit; a missing or bad key is answered 401 before the SDK sees the request.
The session manager is stateless and answers in JSON: each request stands on
its own (its key, its principal), nothing of a client lives in one process's
memory, so any replica behind a load balancer can serve any request. So no
stream is ever held open: a GET (the transport's server-to-client stream) is
answered 405, as the transport allows.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send

from hippograph.admission import Refused
from hippograph.mcp.caller import ADMITTED_STATE_KEY
from hippograph.ratelimit import RateLimiter
from hippograph.server.doors import admit_request
from hippograph.server.refusals import refusal, refused_answer


def session_manager(server: MCPServer[Any], host: str) -> StreamableHTTPSessionManager:
    """The SDK's session manager for ``server`` (run it in the app's lifespan).

    ``host`` is the bind address: on loopback the SDK also refuses requests whose
    Host or Origin is not loopback (DNS rebinding).
    """
    # streamable_http_app() is the SDK's public way to make the manager; its
    # own Starlette app is not used: ours routes /mcp to MCPEndpoint.
    server.streamable_http_app(stateless_http=True, json_response=True, host=host)
    return server.session_manager


def invalid_ids(body: bytes) -> JSONResponse | None:
    """A JSON-RPC "Invalid Request" answer for a message whose id is neither a string nor
    a number (JSON-RPC 2.0 allows only those, and null), else None.

    The SDK took such a message for a notification and answered 202 with no
    body: the client never learnt its request was dropped.
    """
    try:
        message = json.loads(body)
    except ValueError:
        return None  # not JSON: the SDK answers its parse error
    messages = message if isinstance(message, list) else [message]
    for item in messages:
        if not isinstance(item, dict) or "id" not in item:
            continue
        value = item["id"]
        if value is None or (isinstance(value, str | int) and not isinstance(value, bool)):
            continue
        error = {"code": -32600, "message": "Invalid Request: id must be a string or a number"}
        return JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, 400)
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the SDK the body already read, then the server's own
    (which tells of a disconnect when the client goes)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


class MCPEndpoint:
    """The ASGI app at ``/mcp``: authenticate, rate-limit, then hand to the SDK."""

    def __init__(self, manager: StreamableHTTPSessionManager, limiter: RateLimiter) -> None:
        self.manager = manager
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        refused = await self._admit(request)
        if refused is not None:
            await refused(scope, receive, send)
            return
        if request.method == "GET":
            # Stateless and answering in JSON, the server never sends on its own:
            # a GET stream would stay open, silent, for as long as the client
            # liked (one key held 300). The transport lets a server refuse it.
            await refusal(
                405,
                "METHOD_NOT_ALLOWED",
                "this server sends nothing unasked: POST each message to /mcp",
                {"Allow": "POST"},
            )(scope, receive, send)
            return
        if request.method == "POST":
            body = await request.body()
            invalid = invalid_ids(body)
            if invalid is not None:
                await invalid(scope, receive, send)
                return
            receive = _replay(body, receive)
        await self.manager.handle_request(scope, receive, send)

    async def _admit(self, request: Request) -> JSONResponse | None:
        try:
            # The same admission and limiter as /graphql: a key's budget is
            # one, whichever door it uses.
            admitted = await admit_request(request, self.limiter, anonymous=False)
        except Refused as exc:
            return refused_answer(exc)
        request.scope.setdefault("state", {})[ADMITTED_STATE_KEY] = admitted
        return None
