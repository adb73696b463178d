"""ASGI middleware around every HTTP request: request ids, access log, latency, body cap.

Written against raw ASGI rather than Starlette's ``BaseHTTPMiddleware``:
they see every message, cost nothing per chunk, and cannot break streaming.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hippograph.logs import request_id
from hippograph.metrics import Metrics
from schema.operation import OPERATION_STATE_KEY

log = logging.getLogger("hippograph.access")

REQUEST_ID_HEADER = "x-request-id"
# A caller's own id is kept (it ties our logs to theirs) when it is tame.
_GOOD_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


class RequestContext:
    """Gives each request an id (header ``X-Request-ID``), logs it, and times it.

    The id is the caller's ``X-Request-ID`` when it is tame, else a new one;
    it is set for the logs of everything the request does and returned in
    the response. The latency is recorded by operation: the GraphQL layer
    names it (``query:search``); other routes are named by their path.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = _header(scope, REQUEST_ID_HEADER)
        rid = given if given and _GOOD_REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 500
        # One state dict for the whole request, so what the GraphQL layer
        # leaves in it (the operation's name) is seen here afterwards.
        state = scope.setdefault("state", {})

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = rid
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - started
            operation = state.get(OPERATION_STATE_KEY) or _route_name(scope["path"])
            metrics = _metrics(scope)
            if metrics is not None:
                metrics.requests.labels(operation, str(status)).observe(elapsed)
            log.info(
                "%s %s %d %.1f ms",
                scope["method"],
                scope["path"],
                status,
                elapsed * 1000,
                extra={
                    "request_id": rid,
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "operation": operation,
                    "duration_ms": round(elapsed * 1000, 2),
                },
            )
            request_id.reset(token)


class BodyLimit:
    """Refuses request bodies over ``max_bytes`` with 413, before they are read whole.

    A declared ``Content-Length`` over the cap is refused at once; a chunked
    body is counted as it arrives and cut off when it passes the cap.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, "content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send)
            return
        received = 0
        responded = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal responded
            if message["type"] == "http.response.start":
                responded = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not responded:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {
                "data": None,
                "errors": [
                    {
                        "message": f"the request body is over {self.max_bytes} bytes "
                        "(HIPPOGRAPH_API__MAX_BODY_BYTES)",
                        "extensions": {"code": "PAYLOAD_TOO_LARGE"},
                    }
                ],
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    """Raised from ``receive`` to unwind the app when a streamed body passes the cap."""


def _header(scope: Scope, name: str) -> str | None:
    wanted = name.encode()
    for key, value in scope.get("headers", []):
        if key.lower() == wanted:
            return bytes(value).decode("latin-1")
    return None


def _metrics(scope: Scope) -> Metrics | None:
    # The runtime (and its registry) starts in the lifespan, after the app is built.
    runtime = getattr(getattr(scope.get("app"), "state", None), "runtime", None)
    return getattr(runtime, "metrics", None)


def _route_name(path: str) -> str:
    # Bounded label values: the few fixed routes, everything else "other".
    if path in ("/graphql", "/mcp", "/healthz", "/readyz", "/metrics", "/explore"):
        return path.lstrip("/")
    return "static" if path.startswith("/static/") else "other"
