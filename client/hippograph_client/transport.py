"""The wire: where requests go, and how an HTTP answer becomes a value or an exception."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import httpx

from hippograph_client.calls import Call
from hippograph_client.errors import (
    HippoGraphError,
    ServerError,
    code_of,
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
    serves both. An answer without that body (a proxy's error page, a
    gateway's 429) is read by its HTTP status (:func:`by_status`).
    """
    body = _json(response)
    errors = body.get("errors") if isinstance(body, dict) else None
    first = errors[0] if isinstance(errors, list) and errors else None
    if isinstance(first, Mapping) and (response.status_code == 200 or code_of(first)):
        raise from_graphql_error(first, retry_after=_retry_after(response))
    if response.status_code != 200:
        raise by_status(response)
    if not isinstance(body, dict) or errors:
        raise ServerError(UNEXPECTED, f"not a GraphQL answer: {response.text[:200]!r}")
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


# What an HTTP status says when no API error code came with it: something
# between the client and the API (a proxy, a gateway) answered.
_BY_STATUS = {401: "UNAUTHENTICATED", 403: "FORBIDDEN", 429: "RATE_LIMITED", 503: "UNAVAILABLE"}


def by_status(response: httpx.Response) -> HippoGraphError:
    """The exception for a refusal without the API's error code, by its HTTP status:
    401, 403, 429 (with ``Retry-After``) and 503 as the API's own; any other a
    ``ServerError`` with code ``HTTP_<status>``."""
    status = response.status_code
    said = f"HTTP {status}: {response.text[:200]!r}"
    code = _BY_STATUS.get(status)
    if code is None:
        return ServerError(f"HTTP_{status}", said)
    return error_for(code, said, retry_after=_retry_after(response))


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def unreachable(url: str, exc: httpx.TransportError) -> HippoGraphError:
    """The exception for a request that got no answer at all."""
    return HippoGraphError("UNREACHABLE", f"no answer from {url}: {exc!r}")
