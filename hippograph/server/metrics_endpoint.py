"""``/metrics``: Prometheus' text format, within the rate limit, and behind a key if you ask.

Each scrape reads counts from the graph, so an open, unlimited endpoint let
anyone who reached the port make the graph work on demand. A scrape now
takes one token of its caller's rate-limit bucket (its key's, or its
address's), as a GraphQL request does; with
``HIPPOGRAPH_API__METRICS_REQUIRE_KEY`` set it also needs an admin key (the
counts span every tenant).
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from hippograph.admission import Refused
from hippograph.ratelimit import RateLimiter
from hippograph.server.doors import admit_request
from hippograph.server.refusals import refusal, refused_answer

_NEEDS_ADMIN = "/metrics needs an admin key here"


class MetricsEndpoint:
    """The ASGI app at ``/metrics``."""

    def __init__(self, limiter: RateLimiter, *, require_key: bool) -> None:
        self.limiter = limiter
        self.require_key = require_key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        response = await self._answer(request)
        await response(scope, receive, send)

    async def _answer(self, request: Request) -> Response:
        runtime = request.app.state.runtime
        try:
            # anonymous: let through here, refused below when a key is required
            admitted = await admit_request(request, self.limiter, anonymous=True)
        except Refused as exc:
            return refused_answer(exc)
        principal = admitted.principal
        if self.require_key and principal is None:
            return refusal(401, "UNAUTHENTICATED", _NEEDS_ADMIN, {"WWW-Authenticate": "Bearer"})
        if self.require_key and principal is not None and not principal.admin:
            return refusal(403, "FORBIDDEN", _NEEDS_ADMIN, {})
        registry = runtime.metrics
        await registry.refresh_counts()
        return Response(registry.exposition(), media_type=CONTENT_TYPE_LATEST)
