"""What every test's GraphQL helper sends and how it reads a success.

The tests reach the API over several clients: Starlette's ``TestClient`` (built
on ``httpx2``), ``httpx`` clients over ASGI or loopback, sync and async. They
share the request's shape and the check of its answer, not a client class.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Answer(Protocol):
    """An HTTP response as ``httpx`` and ``httpx2`` both give it."""

    @property
    def status_code(self) -> int:
        """The HTTP status."""
        ...

    def json(self, **kwargs: Any) -> Any:
        """The decoded body."""
        ...


class SyncHttp(Protocol):
    """A synchronous client of the app: ``TestClient`` or an ``httpx.Client``."""

    def post(
        self, url: str, *, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> Answer:
        """POST ``json`` to ``url``."""
        ...


def payload(query: str, variables: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body of one operation."""
    return {"query": query, "variables": dict(variables or {})}


def bearer(key: str | None) -> dict[str, str]:
    """The headers that send ``key`` (none without one)."""
    return {"Authorization": f"Bearer {key}"} if key else {}


def data_of(answer: Answer) -> dict[str, Any]:
    """The ``data`` of an answer that must be a success: HTTP 200 and no GraphQL errors."""
    body = answer.json()
    assert answer.status_code == 200, body
    assert not body.get("errors"), body
    data: dict[str, Any] = body["data"]
    return data
