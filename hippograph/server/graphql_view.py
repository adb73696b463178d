"""The GraphQL endpoint: authentication, context, and a GraphiQL that works offline.

Strawberry's GraphiQL page loads its scripts from a CDN, which a machine
without internet cannot reach, so this view serves its own page whose
scripts come from ``/static/vendor`` (copied out of the npm packages by
``make assets``).
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from hippograph.auth import Principal, parse_bearer
from hippograph.errors import Unauthenticated, Unavailable
from resolvers.loaders import build_loaders
from schema.context import Context

STATIC_DIR = Path(__file__).parent / "static"
VENDOR_FILES = (
    "react.production.min.js",
    "react-dom.production.min.js",
    "graphiql.min.js",
    "graphiql.min.css",
)


def graphiql_page() -> str:
    """Our GraphiQL page, or an explanation of how to build its assets."""
    missing = [f for f in VENDOR_FILES if not (STATIC_DIR / "vendor" / f).exists()]
    if missing:
        return (
            "<!doctype html><title>GraphiQL assets missing</title>"
            "<p>GraphiQL's assets are not built (missing: " + ", ".join(missing) + "). "
            "Run <code>make assets</code>, or POST GraphQL to this URL.</p>"
        )
    return (STATIC_DIR / "graphiql.html").read_text()


def _error(status: int, code: str, message: str) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(
        {"data": None, "errors": [{"message": message, "extensions": {"code": code}}]},
        status_code=status,
        headers=headers,
    )


class HippoGraphQL(GraphQL[Context, None]):
    """Strawberry's ASGI view with API-key authentication in front.

    A request with a bad key is answered 401 at once. A request with no key
    (or an empty ``Bearer``) reaches the schema as anonymous: introspection works (GraphiQL can load
    the schema before a key is pasted), and every data field answers
    UNAUTHENTICATED.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            request = Request(scope, receive)
            header = request.headers.get("authorization", "").strip()
            # "Bearer" with nothing after it is GraphiQL's empty template: no key.
            if header and header.lower() != "bearer":
                runtime = request.app.state.runtime
                try:
                    principal = await runtime.services.keys.authenticate(parse_bearer(header))
                except Unauthenticated as exc:
                    await _error(401, exc.code, exc.message)(scope, receive, send)
                    return
                except Unavailable as exc:
                    await _error(503, exc.code, exc.message)(scope, receive, send)
                    return
                scope.setdefault("state", {})["principal"] = principal
        await super().__call__(scope, receive, send)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        runtime = request.app.state.runtime
        principal: Principal | None = request.scope.get("state", {}).get("principal")
        return Context(
            services=runtime.services,
            loaders=build_loaders(runtime.services, principal),
            caller=principal,
            request=request,
            response=response,
        )

    async def render_graphql_ide(self, request: Request) -> Response:
        return HTMLResponse(graphiql_page())
