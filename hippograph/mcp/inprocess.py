"""The MCP tools' connection to the API: the typed client, over an in-process transport.

A tool is an agent's call of the Python client, so it *is* one: the same
``AsyncHippoGraph`` a user's agent installs, sending the same operations to
the same app's ``/graphql``, only through ``httpx.ASGITransport`` instead of
a socket. Everything the API decides (validation, limits, error codes,
masking, who may see what) is decided there once, and the request runs
through the app's middleware like any other (a request id, the access log).

The request carries the caller's key and the ``Admitted`` caller under
``hippograph.admission.IN_PROCESS``: admitted at ``/mcp`` (or by the stdio
key), the caller is not charged again for each operation a tool sends.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import httpx
from hippograph_client import AsyncHippoGraph
from starlette.types import ASGIApp, Receive, Scope, Send

from hippograph.admission import IN_PROCESS, Admitted
from hippograph.logs import request_id

ORIGIN = "http://hippograph.in-process"
"""The address the in-process client is given: never resolved, only routed to the app."""

TIMEOUT_S = 300.0
"""One operation's limit: as long as a large memorize may take (the app has its own)."""


class _AsAdmitted:
    """The app, for requests made on behalf of one admitted caller."""

    def __init__(self, app: ASGIApp, admitted: Admitted) -> None:
        self.app = app
        self.admitted = admitted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app({**scope, IN_PROCESS: self.admitted}, receive, send)


@dataclass(frozen=True)
class InProcess:
    """Opens clients to ``app()`` (looked up per call: the app exists after its tools)."""

    app: Callable[[], ASGIApp]

    @contextlib.asynccontextmanager
    async def client(self, admitted: Admitted) -> AsyncIterator[AsyncHippoGraph]:
        """A client acting as ``admitted``, for the length of one tool call."""
        if admitted.key is None:
            raise ValueError("an in-process client acts for a caller with a key")
        # The tool call's request id, so the log ties its operations to it.
        rid = request_id.get()
        transport = httpx.ASGITransport(app=_AsAdmitted(self.app(), admitted))
        async with httpx.AsyncClient(
            transport=transport,
            timeout=TIMEOUT_S,
            headers={"X-Request-ID": rid} if rid else None,
        ) as http:
            yield AsyncHippoGraph(ORIGIN, admitted.key, http=http)
