"""The Starlette app: ``/graphql`` (with GraphiQL), ``/mcp``, ``/explore``, health, metrics,
static assets."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from hippograph.mcp.caller import Caller
from hippograph.mcp.http import MCPEndpoint, session_manager
from hippograph.mcp.inprocess import InProcess
from hippograph.mcp.server import build_server
from hippograph.ratelimit import RateLimiter
from hippograph.runtime import Runtime
from hippograph.server.forwarded import ForwardedFor, networks
from hippograph.server.graphql_view import STATIC_DIR, HippoGraphQL
from hippograph.server.metrics_endpoint import MetricsEndpoint
from hippograph.server.middleware import BodyLimit, RequestContext
from hippograph.server.open_streams import OpenStreams
from hippograph.server.readiness import ReadinessEndpoint
from hippograph.settings import Settings
from schema.build import shared_schema


async def healthz(request: Request) -> JSONResponse:
    """The process is up and serving (readiness of dependencies is /readyz's job)."""
    return JSONResponse({"status": "ok"})


# The explorer draws memory text: a strict policy means that even text that
# slipped past its escaping could not load or run anything from elsewhere.
EXPLORE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}


class StaticPages(StaticFiles):
    """The static files, each with the explorer's headers: its page is among them,
    and the copy served here must not be framed or load anything from elsewhere
    any more than the one at /explore."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        """The file's response, with the strict headers."""
        response = await super().get_response(path, scope)
        response.headers.update(EXPLORE_HEADERS)
        return response


# The graph library the explorer draws with (web/build-assets.mjs copies them).
EXPLORE_VENDOR_FILES = ("cytoscape.min.js", "cytoscape-dagre.min.js")


async def explore(request: Request) -> Response:
    """The provenance explorer: a static page that queries /graphql with the reader's key."""
    missing = [f for f in EXPLORE_VENDOR_FILES if not (STATIC_DIR / "vendor" / f).exists()]
    if missing:
        return HTMLResponse(
            "<!doctype html><title>Explorer assets missing</title>"
            "<p>The explorer's graph library is not built (missing: " + ", ".join(missing) + "). "
            "Run <code>make assets</code>.</p>",
            status_code=503,
            headers=EXPLORE_HEADERS,
        )
    return FileResponse(STATIC_DIR / "explore.html", headers=EXPLORE_HEADERS)


def create_app(
    settings: Settings | None = None,
    *,
    runtime: Runtime | None = None,
    stop_runtime: bool = False,
    **start: Any,
) -> Starlette:
    """The ASGI app. With ``runtime`` given, it is used, and stopped at shutdown only
    with ``stop_runtime``; otherwise one is started from ``settings`` (and ``start``
    keyword arguments) in the lifespan and stopped at shutdown.
    """
    settings = settings or (runtime.settings if runtime else Settings())

    schema = shared_schema(settings.limits)
    # The MCP tools are calls of the typed client to this app's /graphql, in
    # process (looked up per call, as the runtime the lifespan starts: neither
    # exists yet).
    tools = build_server(
        InProcess(lambda: app), Caller(keys=lambda: app.state.runtime.services.keys)
    )
    mcp = session_manager(tools, settings.api.host)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            if runtime is not None:
                app.state.runtime = runtime
                if stop_runtime:
                    stack.push_async_callback(runtime.stop)
            else:
                app.state.runtime = await Runtime.start(settings, **start)
                stack.push_async_callback(app.state.runtime.stop)
            await stack.enter_async_context(mcp.run())
            yield

    api = settings.api
    limiter = RateLimiter(api.rate_limit_per_s, api.rate_limit_burst)
    streams = OpenStreams(api.max_websockets_per_key, api.max_subscriptions_per_key)
    graphql = HippoGraphQL(schema, limiter, streams, graphql_ide="graphiql")
    app = Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            Route("/mcp", MCPEndpoint(mcp, limiter)),
            # Subscriptions: a Route matches HTTP only, so the websocket needs its own.
            WebSocketRoute("/graphql", graphql),
            Route("/explore", explore),
            Route("/healthz", healthz),
            # The body names each dependency's state, so an operator sees which
            # one is missing; a load balancer only needs the status code.
            Route("/readyz", ReadinessEndpoint().respond),
            Route(
                "/metrics", MetricsEndpoint(limiter, require_key=settings.api.metrics_require_key)
            ),
            Mount("/static", StaticPages(directory=STATIC_DIR), name="static"),
        ],
        middleware=[
            # Outermost first: the client's address (behind a proxy you name),
            # then every request gets its id and its timing, even one the body
            # cap refuses.
            Middleware(ForwardedFor, trusted=networks(settings.api.trusted_proxies)),
            Middleware(RequestContext),
            Middleware(BodyLimit, max_bytes=settings.api.max_body_bytes),
        ],
        lifespan=lifespan,
    )
    if runtime is not None:
        # Served before (or without) its lifespan: in process, by stdio's MCP tools.
        app.state.runtime = runtime
    return app
