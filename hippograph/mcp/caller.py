"""Who is calling a tool: the key of the HTTP request, or the key the process was given.

Over HTTP every request is authenticated before it reaches the MCP layer
(``http.py`` leaves the principal in the request's scope, as ``/graphql``
does); the tool reads it from the request the SDK hands it. Over stdio there
is one client and one key, given at start (``HIPPOGRAPH_API_KEY``); it is
authenticated again on each call (KeyService caches the lookup), so a key
revoked while the client runs stops working as it would over HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context as McpContext

from hippograph.auth import Principal
from hippograph.errors import Unauthenticated
from hippograph.services import Services

# Where http.py leaves the authenticated principal in the request's ASGI scope:
# the same key the GraphQL view uses.
PRINCIPAL_STATE_KEY = "principal"


def request_principal(request: Any) -> Principal | None:
    """The principal http.py authenticated for this HTTP request, if any."""
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return None
    principal = scope.get("state", {}).get(PRINCIPAL_STATE_KEY)
    return principal if isinstance(principal, Principal) else None


@dataclass(frozen=True)
class Caller:
    """Resolves a tool call's principal.

    ``key`` is the stdio process's key; the HTTP server has none, so a call that
    somehow reached it without an authenticated request is refused, never served
    as someone else.
    """

    services: Callable[[], Services]
    key: str | None = None

    async def principal(self, ctx: McpContext[Any, Any]) -> Principal:
        """The principal of the call ``ctx`` belongs to; ``Unauthenticated`` if none."""
        principal = request_principal(ctx.request_context.request)
        if principal is not None:
            return principal
        if self.key is None:
            raise Unauthenticated("send an API key: Authorization: Bearer <key>")
        return await self.services().keys.authenticate(self.key)
