"""Websocket admission for GraphQL subscriptions (graphql-transport-ws).

The key comes in the ``connection_init`` payload, ``{"authorization":
"Bearer <key>"}`` (browsers cannot set headers on a websocket), or else in
the upgrade request's ``Authorization`` header. A bad key closes the
connection with 4403; no key is admitted as anonymous, and every
subscription then answers ``UNAUTHENTICATED``, as every HTTP query does.
Each connection takes one token of its key's (or address's) rate limit.
"""

from __future__ import annotations

import time

from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import ConnectionInitMessage

from hippograph.auth import Principal, parse_bearer
from hippograph.errors import Unauthenticated, Unavailable
from hippograph.ratelimit import RateLimiter
from resolvers.loaders import build_loaders
from schema.context import Context

# Close codes: the protocol's 4403 (Forbidden) and 4429, and the websocket
# standard's 1013 (try again later) for a dependency that is down.
FORBIDDEN = 4403
TOO_MANY = 4429
TRY_AGAIN_LATER = 1013


class Refused(Exception):
    """The connection is closed with ``code`` and ``reason`` instead of acknowledged."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        # The websocket protocol caps a close reason at 123 bytes.
        self.reason = reason.encode()[:123].decode(errors="ignore")


def _authorization(context: Context) -> str:
    """The credentials offered: the init payload's ``authorization``, else the header."""
    params = context.connection_params or {}
    offered = params.get("authorization", params.get("Authorization"))
    if offered is None:
        headers = getattr(context.request, "headers", {})
        offered = headers.get("authorization", "")
    if not isinstance(offered, str):
        raise Refused(FORBIDDEN, "authorization must be a string: 'Bearer <key>'")
    return offered.strip()


async def admit(context: Context, limiter: RateLimiter) -> None:
    """Authenticate a connection's ``context`` (``Refused`` if it may not go on).

    On success the context gets the caller and loaders of its own, which do
    not cache: the context lives as long as the connection.
    """
    header = _authorization(context)
    request = context.request
    client = getattr(request, "client", None)
    bucket = f"address:{client.host if client else 'unknown'}"
    principal: Principal | None = None
    # "Bearer" with nothing after it is GraphiQL's empty template: no key.
    if header and header.lower() != "bearer":
        try:
            principal = await context.services.keys.authenticate(parse_bearer(header))
        except Unauthenticated as exc:
            _limit(limiter, bucket)
            raise Refused(FORBIDDEN, exc.message) from None
        except Unavailable as exc:
            raise Refused(TRY_AGAIN_LATER, exc.message) from None
        bucket = f"key:{principal.key_id}"
    _limit(limiter, bucket)
    context.caller = principal
    context.loaders = build_loaders(context.services, principal, cache=False)


def _limit(limiter: RateLimiter, bucket: str) -> None:
    wait = limiter.check(bucket, time.monotonic())
    if wait > 0:
        seconds = RateLimiter.retry_after(wait)
        raise Refused(TOO_MANY, f"too many connections for this key; retry after {seconds} s")


class AdmittingHandler(BaseGraphQLTransportWSHandler[Context, None]):
    """Strawberry's graphql-transport-ws handler, closing refused connections with their code."""

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        """Strawberry's, with :class:`Refused` (raised by the view's ``on_ws_connect``) closing."""
        try:
            await super().handle_connection_init(message)
        except Refused as refusal:
            await self.websocket.close(code=refusal.code, reason=refusal.reason)
