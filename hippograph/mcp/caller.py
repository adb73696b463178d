"""Who is calling a tool: the key of the HTTP request, or the key the process was given.

Over HTTP every request is admitted before it reaches the MCP layer
(``http.py`` leaves the ``Admitted`` caller in the request's scope); the tool
reads it from the request the SDK hands it. Over stdio there is one client
and one key, given at start (``HIPPOGRAPH_API_KEY``); it is admitted again on
each call (KeyService caches the lookup), so a key revoked while the client
runs stops working as it would over HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context as McpContext

from hippograph.admission import Admitted, KeyChecker, Refused, admit

# Where http.py leaves the admitted caller in the request's ASGI scope.
ADMITTED_STATE_KEY = "admitted"


def request_admitted(request: Any) -> Admitted | None:
    """The caller http.py admitted for this HTTP request, if any."""
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return None
    admitted = scope.get("state", {}).get(ADMITTED_STATE_KEY)
    return admitted if isinstance(admitted, Admitted) else None


@dataclass(frozen=True)
class Caller:
    """Resolves a tool call's caller.

    ``key`` is the stdio process's key; the HTTP server has none, so a call that
    somehow reached it without an admitted request is refused, never served
    as someone else.
    """

    keys: Callable[[], KeyChecker]
    key: str | None = None

    async def admitted(self, ctx: McpContext[Any, Any]) -> Admitted:
        """The caller of the call ``ctx`` belongs to; ``Refused`` if there is none."""
        admitted = request_admitted(ctx.request_context.request)
        if admitted is not None:
            return admitted
        if self.key is None:
            raise Refused(401, "UNAUTHENTICATED", "send an API key: Authorization: Bearer <key>")
        # No rate over stdio: one client, one process.
        return await admit(self.keys(), None, f"Bearer {self.key}", None, anonymous=False)
