"""The refusals of the JSON routes (``/mcp``, ``/metrics``): one body, one rate limit.

GraphQL answers its refusals in GraphQL's own error shape (graphql_view.py);
the other routes answer ``{"error": {"code", "message"}}`` and share the
limiter, so a key's budget is one whichever door it uses.
"""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import JSONResponse

from hippograph.ratelimit import RateLimiter


def refusal(status: int, code: str, message: str, headers: dict[str, str]) -> JSONResponse:
    """A refused request's answer."""
    return JSONResponse({"error": {"code": code, "message": message}}, status, headers)


def over_limit(request: Request, limiter: RateLimiter, bucket: str) -> JSONResponse | None:
    """429 with ``Retry-After`` when ``bucket`` is over its rate (counted in the metrics),
    else None, the request having taken its token."""
    over = limiter.admit(bucket, time.monotonic())
    if over is None:
        return None
    request.app.state.runtime.metrics.rate_limited.inc()
    return refusal(429, "RATE_LIMITED", over.message, {"Retry-After": str(over.retry_after_s)})
