"""The wire: where requests go, and how an HTTP answer becomes a value or an exception."""

from __future__ import annotations

from typing import Any, TypeVar

import httpx

from hippograph_client.calls import Call
from hippograph_client.errors import (
    HippoGraphError,
    ServerError,
    error_for,
    from_graphql_error,
)

T = TypeVar("T")

UNEXPECTED = "UNEXPECTED_ANSWER"
"""The code of an answer that is JSON but not what the operation asked for."""

DEFAULT_TIMEOUT = 30.0
"""Seconds for one HTTP request (memorize of a long conversation embeds every turn)."""


def endpoint(url: str) -> str:
    """The GraphQL endpoint of a server: ``url`` itself if it ends in ``/graphql``."""
    base = url.rstrip("/")
    return base if base.endswith("/graphql") else f"{base}/graphql"


def headers(key: str) -> dict[str, str]:
    """The request headers carrying ``key``."""
    if not key or not key.strip():
        raise ValueError("an API key is required (the server's data/admin.key, or a limited key)")
    return {"Authorization": f"Bearer {key.strip()}", "Accept": "application/json"}


def answer(call: Call[T], response: httpx.Response) -> T:
    """The value of ``call``'s root field in ``response``, or the exception it carries.

    HTTP refusals (401, 429, 400, 413) and GraphQL errors carry the same
    ``{"errors": [{"message", "extensions": {"code"}}]}`` body, so one reader
    serves both; a body that is not JSON (a proxy's error page) is a
    ``ServerError`` naming the status.
    """
    body = _json(response)
    errors = body.get("errors") if isinstance(body, dict) else None
    if errors:
        raise from_graphql_error(errors[0], retry_after=_retry_after(response))
    if response.status_code != 200 or not isinstance(body, dict):
        raise error_for(
            f"HTTP_{response.status_code}", f"unexpected answer: {response.text[:200]!r}"
        )
    data = body.get("data")
    if not isinstance(data, dict) or call.field not in data:
        raise ServerError(UNEXPECTED, f"the answer has no {call.field}")
    try:
        return call.read(data[call.field])
    except HippoGraphError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        # A value the client cannot read (an enum member it does not know):
        # the server is newer or older than the client.
        raise ServerError(UNEXPECTED, f"cannot read {call.field}: {exc!r}") from exc


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        raise ServerError(
            f"HTTP_{response.status_code}", f"not a GraphQL answer: {response.text[:200]!r}"
        ) from None


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def unreachable(url: str, exc: httpx.TransportError) -> HippoGraphError:
    """The exception for a request that got no answer at all."""
    return HippoGraphError("UNREACHABLE", f"no answer from {url}: {exc!r}")
