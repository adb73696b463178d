"""The GraphQL endpoint: authentication, context, and a GraphiQL that works offline.

Strawberry's GraphiQL page loads its scripts from a CDN, which a machine
without internet cannot reach, so this view serves its own page whose
scripts come from ``/static/vendor`` (copied out of the npm packages by
``make assets``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.schema import BaseSchema
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types.unset import UNSET, UnsetType

from hippograph.admission import IN_PROCESS, Admitted, Refused
from hippograph.auth import Principal
from hippograph.ratelimit import RateLimiter
from hippograph.server.doors import admit_request
from hippograph.server.open_streams import OpenStreams
from hippograph.server.websocket import AdmittingHandler, admit_connection
from resolvers.loaders import build_loaders
from schema.context import Context
from schema.surrogates import first_surrogate

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


# ``connection_ack`` without a payload.
_PLAIN_ACK: UnsetType = UNSET

_HTTP_CODES = {
    400: "BAD_REQUEST",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    415: "UNSUPPORTED_MEDIA_TYPE",
}


def _error(
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    field: str | None = None,
) -> JSONResponse:
    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": "Bearer"}
    extensions = {"code": code} if field is None else {"code": code, "field": field}
    return JSONResponse(
        {"data": None, "errors": [{"message": message, "extensions": extensions}]},
        status_code=status,
        headers=headers,
    )


def _keyless_refusal(request: Request, response: Response) -> Response:
    """``response``, answered 401 when a request without a key asked for data.

    A wrong key is refused with 401 before the schema runs; a missing one
    reaches it as anonymous, so that introspection works, and every data
    field says UNAUTHENTICATED. Both are the same mistake to a client (and
    to a proxy's metrics): the answer keeps its body (whatever was public in
    it, the schema say) and takes the wrong key's status.
    """
    if (
        "principal" in request.scope.get("state", {})
        or response.status_code != 200
        or b'"UNAUTHENTICATED"' not in getattr(response, "body", b"")  # not a stream
    ):
        return response
    errors = json.loads(bytes(response.body)).get("errors") or []
    if any((e.get("extensions") or {}).get("code") == "UNAUTHENTICATED" for e in errors):
        response.status_code = 401
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


class _BadInput(HTTPException):
    """A request body member that is not valid input (400 ``BAD_USER_INPUT``, naming it)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(400, message)
        self.field = field


class HippoGraphQL(GraphQL[Context, None]):
    """Strawberry's ASGI view with API-key authentication and a rate limit in front.

    A request with a bad key is answered 401 at once. A request with no key
    (or an empty ``Bearer``) reaches the schema as anonymous: introspection works (GraphiQL can load
    the schema before a key is pasted), and every data field answers
    UNAUTHENTICATED. Each key has its own rate (anonymous and refused callers
    share their address's); over it, 429 with ``Retry-After``.

    Subscriptions come over a websocket on the same path, in the
    graphql-transport-ws protocol only (the legacy ``graphql-ws`` one is
    refused with 4406); ``hippograph.server.websocket`` admits them.
    """

    graphql_transport_ws_handler_class = AdmittingHandler

    def __init__(
        self, schema: BaseSchema, limiter: RateLimiter, streams: OpenStreams, **options: Any
    ) -> None:
        options.setdefault("subscription_protocols", (GRAPHQL_TRANSPORT_WS_PROTOCOL,))
        super().__init__(schema, **options)
        self.limiter = limiter
        self.streams = streams

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        """Authenticate the websocket's ``connection_init`` (see :mod:`~.websocket`)."""
        await admit_connection(context, self.limiter, self.streams)
        return _PLAIN_ACK

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope, receive)
        response = await self._admit(request)
        if response is None:
            try:
                response = _keyless_refusal(request, await self.run(request))
            except _BadInput as exc:
                response = _error(400, "BAD_USER_INPUT", exc.reason, field=exc.field)
            except HTTPException as exc:
                # Strawberry answers these in plain text; clients parse JSON.
                code = _HTTP_CODES.get(exc.status_code, f"HTTP_{exc.status_code}")
                response = _error(exc.status_code, code, exc.reason)
        await response(scope, receive, send)

    async def _admit(self, request: Request) -> Response | None:
        """Authenticate and rate-limit ``request`` (hippograph.admission); a response if refused.

        A request made in this process for a caller admitted elsewhere (an
        MCP tool's) acts as that caller, admitted once (``IN_PROCESS``).
        """
        admitted = request.scope.get(IN_PROCESS)
        if not isinstance(admitted, Admitted):
            try:
                admitted = await admit_request(request, self.limiter, anonymous=True)
            except Refused as exc:
                retry = {"Retry-After": str(exc.retry_after_s)} if exc.retry_after_s else None
                return _error(exc.status, exc.code, exc.message, retry)
        if admitted.principal is not None:
            request.scope.setdefault("state", {})["principal"] = admitted.principal
        return None

    def decode_json(self, data: str | bytes) -> object:
        # Thousands of nested brackets exhaust Python's recursion limit inside
        # json, and bytes that are not UTF-8 fail before parsing: both are the
        # client's malformed body (400), not our crash (500).
        try:
            body = super().decode_json(data)
        except RecursionError as exc:
            raise HTTPException(400, "the request body nests too deeply") from exc
        except UnicodeDecodeError as exc:
            raise HTTPException(400, "the request body is not UTF-8") from exc
        return body

    def parse_json(self, data: str | bytes) -> Any:
        """An HTTP request's body (websocket messages come through ``decode_json`` alone:
        their subscribe payloads are checked one operation at a time, server/websocket.py)."""
        body = super().parse_json(data)
        # Python's JSON decoder lets lone surrogates through ("\ud800", or the
        # bytes ED A0 80). In variables the schema refuses them field by field
        # (schema/surrogates.py); anywhere else in the body they would reach
        # an error message that cannot be encoded as UTF-8.
        if isinstance(body, dict):
            outside = {k: v for k, v in body.items() if k != "variables"}
            hit = first_surrogate(outside, "")
            if hit is not None:
                field = hit[0] or "body"
                raise _BadInput(field, f"{field} contains a lone UTF-16 surrogate ({hit[1]})")
        return body

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
