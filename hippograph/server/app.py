"""The Starlette app: ``/graphql`` (with GraphiQL), ``/explore``, health, metrics, static assets."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from hippograph.ratelimit import RateLimiter
from hippograph.runtime import Runtime
from hippograph.server.graphql_view import STATIC_DIR, HippoGraphQL
from hippograph.server.middleware import BodyLimit, RequestContext
from hippograph.settings import Settings
from schema.build import build_schema


async def healthz(request: Request) -> JSONResponse:
    """The process is up and serving (readiness of dependencies is /readyz's job)."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """200 when the graph, the queue (server mode) and the model all answer, else 503.

    The body names each dependency's state, so an operator sees which one
    is missing; a load balancer only needs the status code.
    """
    runtime = request.app.state.runtime
    checks = await runtime.readiness(runtime.settings.api.ready_timeout_s)
    ready = all(state == "ok" for state in checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "unavailable", "checks": checks},
        status_code=200 if ready else 503,
    )


async def metrics(request: Request) -> Response:
    """Prometheus' text format: request latency by operation, jobs, memory counts."""
    registry = request.app.state.runtime.metrics
    await registry.refresh_counts()
    return Response(registry.exposition(), media_type=CONTENT_TYPE_LATEST)


# The explorer draws memory text: a strict policy means that even text that
# slipped past its escaping could not load or run anything from elsewhere.
EXPLORE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}


async def explore(request: Request) -> FileResponse:
    """The provenance explorer: a static page that queries /graphql with the reader's key."""
    return FileResponse(STATIC_DIR / "explore.html", headers=EXPLORE_HEADERS)


def create_app(
    settings: Settings | None = None, *, runtime: Runtime | None = None, **start: Any
) -> Starlette:
    """The ASGI app. With ``runtime`` given, it is used and left running at shutdown;
    otherwise one is started from ``settings`` (and ``start`` keyword arguments)
    in the lifespan and stopped at shutdown.
    """
    settings = settings or (runtime.settings if runtime else Settings())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if runtime is not None:
            app.state.runtime = runtime
            yield
            return
        own = await Runtime.start(settings, **start)
        app.state.runtime = own
        try:
            yield
        finally:
            await own.stop()

    limiter = RateLimiter(settings.api.rate_limit_per_s, settings.api.rate_limit_burst)
    graphql = HippoGraphQL(build_schema(settings.limits), limiter, graphql_ide="graphiql")
    return Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            # Subscriptions: a Route matches HTTP only, so the websocket needs its own.
            WebSocketRoute("/graphql", graphql),
            Route("/explore", explore),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        middleware=[
            # Outermost first: every request gets its id and its timing, even
            # one the body cap refuses.
            Middleware(RequestContext),
            Middleware(BodyLimit, max_bytes=settings.api.max_body_bytes),
        ],
        lifespan=lifespan,
    )
