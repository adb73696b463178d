"""The Starlette app: ``/graphql`` (with GraphiQL), ``/explore``, ``/healthz``, static assets."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hippograph.server.graphql_view import STATIC_DIR, HippoGraphQL
from hippograph.server.runtime import Runtime
from hippograph.settings import Settings
from schema.build import build_schema


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

    graphql = HippoGraphQL(build_schema(settings.limits), graphql_ide="graphiql")
    return Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            Route("/explore", explore),
            Route("/healthz", healthz),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        lifespan=lifespan,
    )
