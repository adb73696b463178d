"""One admission for every door: the key checked, the caller's rate spent.

``/graphql`` over HTTP and over its websocket, ``/mcp``, ``/metrics`` and
MCP on stdio each used to authenticate and rate-limit in their own words,
and they had drifted once (on the rate buckets' names). Each now calls
:func:`admit` and only says how a refusal reads on its transport: a JSON
body with an HTTP status, GraphQL's error shape, a websocket close code, a
start-up error.

The rules, the same at every door:

* an ``Authorization`` value with no key ("", or GraphiQL's bare
  ``Bearer``) is anonymous, where the door allows it (GraphQL: the schema
  can be read before a key is pasted), and spends its address's budget;
* a refused key spends its address's budget (so guessing keys is rate
  limited too), then is refused: 429 if that budget is spent, else 401;
  while it is spent, a key that has never worked is refused without a
  lookup, so guesses cost the graph nothing however fast they come (a key
  that has worked is looked up as ever: others at its address cannot lock
  it out);
* an accepted key spends its own budget, whichever door it came in by;
* a store that cannot answer is 503, with nothing spent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from hippograph.auth import Principal, parse_bearer
from hippograph.errors import Unauthenticated, Unavailable
from hippograph.ratelimit import RateLimiter, bucket


class KeyChecker(Protocol):
    """What admission needs of the key service."""

    async def authenticate(self, key: str | None, look_up: bool = True) -> Principal: ...


@dataclass(frozen=True, slots=True)
class Admitted:
    """A caller let in: who (None: anonymous), the key they sent, the budget they spend."""

    principal: Principal | None
    key: str | None
    bucket: str


IN_PROCESS = "hippograph.admitted"
"""The ASGI scope key under which a request made inside this process carries the
``Admitted`` caller it acts for (the MCP tools' client, hippograph/mcp/inprocess.py).

That caller was admitted at its own door (``/mcp``, or the stdio process's
key), and spent its rate there once per tool call; the operations the tool
sends are not admitted again. No request from the network can carry it: a
server fills the scope from HTTP, never with keys of its own choosing.
"""


class Refused(Exception):
    """A caller turned away: the HTTP status it maps to, a code and a message."""

    def __init__(
        self, status: int, code: str, message: str, retry_after_s: int | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after_s = retry_after_s


def offers_key(authorization: str | None) -> bool:
    """Whether an ``Authorization`` value offers a key at all ("Bearer" alone does not)."""
    value = (authorization or "").strip()
    return bool(value) and value.lower() != "bearer"


async def admit(
    keys: KeyChecker,
    limiter: RateLimiter | None,
    authorization: str | None,
    address: str | None,
    *,
    anonymous: bool,
    on_limited: Callable[[], None] | None = None,
) -> Admitted:
    """Admit a caller by ``authorization`` (a header's value) from ``address``; ``Refused`` if not.

    ``anonymous``: whether a caller with no key may go on (it spends its
    address's budget either way). ``on_limited`` counts a rate refusal.
    """

    def spend(budget: str) -> None:
        over = limiter.admit(budget, time.monotonic()) if limiter is not None else None
        if over is not None:
            if on_limited is not None:
                on_limited()
            raise Refused(429, "RATE_LIMITED", over.message, over.retry_after_s)

    by_address = bucket(None, address)
    if not offers_key(authorization) and anonymous:
        spend(by_address)
        return Admitted(None, None, by_address)
    key = parse_bearer(authorization)
    spent = limiter is not None and limiter.spent(by_address, time.monotonic())
    try:
        principal = await keys.authenticate(key, look_up=not spent)
    except Unauthenticated as exc:
        spend(by_address)
        raise Refused(401, exc.code, exc.message) from None
    except Unavailable as exc:
        raise Refused(503, exc.code, exc.message) from None
    own = bucket(principal.key_id, None)
    spend(own)
    return Admitted(principal, key, own)
