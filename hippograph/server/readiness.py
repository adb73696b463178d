"""``/readyz``: the dependencies' states, one check at a time however often asked.

The endpoint takes no key (a load balancer asks it), and each check runs a
graph query and a model embedding. Unshared, a flood of probes would be a
flood of graph and model work; shared, concurrent probes wait for the one
check under way, and a "ready" a second old is given again. A "not ready"
is not kept: the next probe checks again, so recovery shows at once.
"""

from __future__ import annotations

import asyncio
import time

from starlette.requests import Request
from starlette.responses import JSONResponse

FRESH_S = 1.0


class ReadinessEndpoint:
    """The ``/readyz`` route: 200 when the graph, the queue (server mode) and the model
    all answer, else 503, with each dependency's state in the body."""

    def __init__(self, fresh_s: float = FRESH_S) -> None:
        self._fresh_s = fresh_s
        self._checked: tuple[float, dict[str, str]] | None = None
        self._running: asyncio.Task[dict[str, str]] | None = None

    async def respond(self, request: Request) -> JSONResponse:
        """The answer to one probe."""
        checks = await self._checks(request)
        ready = all(state == "ok" for state in checks.values())
        return JSONResponse(
            {"status": "ready" if ready else "unavailable", "checks": checks},
            status_code=200 if ready else 503,
        )

    async def _checks(self, request: Request) -> dict[str, str]:
        now = time.monotonic()
        if self._checked is not None and now - self._checked[0] < self._fresh_s:
            return self._checked[1]
        if self._running is None or self._running.done():
            runtime = request.app.state.runtime
            self._running = asyncio.ensure_future(
                runtime.readiness(runtime.settings.api.ready_timeout_s)
            )
        # Shielded: a probe that gives up must not cancel the check the
        # others wait for.
        checks: dict[str, str] = await asyncio.shield(self._running)
        ready = all(state == "ok" for state in checks.values())
        self._checked = (time.monotonic(), checks) if ready else None
        return checks
