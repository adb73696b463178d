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
from collections.abc import Callable
from typing import cast

from graphql import GraphQLError, OperationType, get_operation_ast, parse
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ConnectionInitMessage,
    ErrorMessage,
    SubscribeMessage,
)

from hippograph.admission import Refused as NotAdmitted
from hippograph.admission import admit
from hippograph.ratelimit import RateLimiter, bucket
from hippograph.server.open_streams import OpenStreams
from resolvers.loaders import build_loaders
from schema.context import Context
from schema.surrogates import first_surrogate

# Close codes: the protocol's 4403 (Forbidden) and 4429, and the websocket
# standard's 1013 (try again later) for a dependency that is down.
FORBIDDEN = 4403
TOO_MANY = 4429
TRY_AGAIN_LATER = 1013
_CLOSE_CODES = {401: FORBIDDEN, 429: TOO_MANY, 503: TRY_AGAIN_LATER}


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


def _bucket(context: Context) -> str:
    """The rate-limit bucket of a connection: its key's, or its address's without one."""
    client = getattr(context.request, "client", None)
    key_id = context.caller.key_id if context.caller is not None else None
    return bucket(key_id, client.host if client else None)


async def admit_connection(context: Context, limiter: RateLimiter, streams: OpenStreams) -> None:
    """Authenticate a connection's ``context`` (``Refused`` if it may not go on: a bad
    key, over the rate, or a key at its cap of open connections).

    The key and the rate are admitted as at every door (hippograph.admission).
    On success the context gets the caller and loaders of its own, which do
    not cache: the context lives as long as the connection.
    """
    client = getattr(context.request, "client", None)
    try:
        admitted = await admit(
            context.services.keys,
            limiter,
            _authorization(context),
            client.host if client else None,
            anonymous=True,
            on_limited=_rate_limited(context),
        )
    except NotAdmitted as exc:
        raise Refused(_CLOSE_CODES.get(exc.status, FORBIDDEN), exc.message) from None
    context.caller = admitted.principal
    context.api_key = admitted.key
    full = streams.connection_refusal(admitted.bucket)
    if full is not None:
        raise Refused(TOO_MANY, full)
    context.loaders = build_loaders(context.services, admitted.principal, cache=False)


def _rate_limited(context: Context) -> Callable[[], None]:
    """What counts a rate refusal here: the runtime's counter, as at the HTTP doors."""
    counter = context.request.app.state.runtime.metrics.rate_limited
    return cast("Callable[[], None]", counter.inc)


def malformed(payload: object) -> tuple[str, str] | None:
    """Why a subscribe payload cannot run, as (code, message); None if it can.

    Strawberry reads the payload's members as they come: a payload that is
    not an object, or a query that is not a string, raised inside its
    handler and dropped the socket with every subscription on it. A lone
    surrogate in the variables is the schema's to refuse, as over HTTP
    (schema/surrogates.py); anywhere else in the payload it would reach an
    error message no UTF-8 encoder can write.
    """
    if not isinstance(payload, dict):
        return "BAD_REQUEST", "a subscribe payload is an object: {query, variables, operationName}"
    if not isinstance(payload.get("query"), str):
        return "BAD_REQUEST", "payload.query must be a string (the subscription's document)"
    if not isinstance(payload.get("variables"), dict | None):
        return "BAD_REQUEST", "payload.variables must be an object"
    if not isinstance(payload.get("operationName"), str | None):
        return "BAD_REQUEST", "payload.operationName must be a string"
    outside = first_surrogate({k: v for k, v in payload.items() if k != "variables"}, "payload")
    if outside is not None:
        return "BAD_REQUEST", f"{outside[0]} contains a lone UTF-16 surrogate ({outside[1]})"
    return None


def _not_a_subscription(payload: object) -> bool:
    """Whether a subscribe message asks for a query or a mutation (unparsable: not decided here)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
        return False
    name = payload.get("operationName")
    try:
        operation = get_operation_ast(
            parse(payload["query"]), name if isinstance(name, str) else None
        )
    except GraphQLError:
        return False
    return operation is not None and operation.operation is not OperationType.SUBSCRIPTION


class AdmittingHandler(BaseGraphQLTransportWSHandler[Context, None]):
    """Strawberry's graphql-transport-ws handler, with our admission and limits.

    A refused ``connection_init`` closes with its code. Each operation takes
    one token of the connection's rate limit, as an HTTP request does, and
    only subscriptions are served: queries and mutations go over HTTP, where
    the body cap, the access log and the latency metric see them.
    """

    _bucket_held: str | None = None

    def _streams(self) -> OpenStreams:
        streams: OpenStreams = getattr(self.view, "streams")  # noqa: B009
        return streams

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        """Strawberry's, with :class:`Refused` (raised by the view's ``on_ws_connect``) closing;
        an acknowledged connection counts against its key's cap until it closes."""
        try:
            await super().handle_connection_init(message)
        except Refused as refusal:
            await self.websocket.close(code=refusal.code, reason=refusal.reason)
            return
        if self.connection_acknowledged and self._bucket_held is None:
            self._bucket_held = _bucket(self.context)
            self._streams().opened(self._bucket_held, self)

    async def shutdown(self) -> None:
        """Strawberry's, and the connection no longer counts against its key."""
        if self._bucket_held is not None:
            self._streams().closed(self._bucket_held, self)
        await super().shutdown()

    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        """Refuse an operation over the limit, a malformed one, or one that is not a
        subscription, each alone (the connection and its other operations stay); else run it."""
        if self.connection_acknowledged and message.get("id") not in self.operations:
            limiter: RateLimiter = getattr(self.view, "limiter")  # noqa: B009
            over = limiter.admit(_bucket(self.context), time.monotonic())
            if over is not None:
                _rate_limited(self.context)()
                await self._refuse(message, "RATE_LIMITED", over.message)
                return
            problem = malformed(message.get("payload"))
            if problem is not None:
                await self._refuse(message, *problem)
                return
            full = self._streams().subscription_refusal(_bucket(self.context))
            if full is not None:
                await self._refuse(message, "TOO_MANY_OPEN", full)
                return
            if _not_a_subscription(message.get("payload")):
                await self._refuse(
                    message,
                    "BAD_REQUEST",
                    "only subscriptions are served over the websocket; "
                    "send queries and mutations with HTTP POST",
                )
                return
        await super().handle_subscribe(message)

    async def _refuse(self, message: SubscribeMessage, code: str, text: str) -> None:
        error = GraphQLError(text, extensions={"code": code})
        await self.send_message(
            ErrorMessage(id=message["id"], type="error", payload=[error.formatted])
        )
