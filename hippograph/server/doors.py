"""An HTTP request at a door (``/graphql``, ``/mcp``, ``/metrics``), admitted.

The rules are hippograph/admission.py's; this reads them off a starlette
request: its ``Authorization`` header, its client's address, and the
runtime's key service and rate-limit counter.
"""

from __future__ import annotations

from starlette.requests import Request

from hippograph.admission import Admitted, admit
from hippograph.ratelimit import RateLimiter


async def admit_request(request: Request, limiter: RateLimiter, *, anonymous: bool) -> Admitted:
    """Admit ``request`` (``hippograph.admission.Refused`` if it is turned away)."""
    runtime = request.app.state.runtime
    return await admit(
        runtime.services.keys,
        limiter,
        request.headers.get("authorization"),
        request.client.host if request.client else None,
        anonymous=anonymous,
        on_limited=runtime.metrics.rate_limited.inc,
    )
