"""What the client raises: one exception per error code the API answers with.

The API refuses a request in three ways, and all three become the same
exceptions: an HTTP refusal before the schema runs (401, 429, 400 and 413
with a JSON body of GraphQL errors), a GraphQL error with
``extensions.code`` (a query's bad input, an invisible user), and a
mutation's typed error member (``InputError``, ``NotFoundError``…). A caller
catches ``NotFound`` whichever way the server said it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class HippoGraphError(Exception):
    """Base of every error the client raises; ``code`` is the API's error code.

    ``field`` names the offending input when the server said which (an
    ``InputError``'s ``field``, or ``extensions.field``).
    """

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field


class BadUserInput(HippoGraphError):
    """A value the server refused (``BAD_USER_INPUT``); nothing was written."""


class NotFound(HippoGraphError):
    """The id does not exist or this key may not see it (``NOT_FOUND``).

    ``id`` is the id the server named, when it named one.
    """

    def __init__(
        self, code: str, message: str, field: str | None = None, id: str | None = None
    ) -> None:
        super().__init__(code, message, field)
        self.id = id


class Unauthenticated(HippoGraphError):
    """No API key, or one the server does not know (``UNAUTHENTICATED``, HTTP 401)."""


class Forbidden(HippoGraphError):
    """The key is known but may not do this (``FORBIDDEN``)."""


class Conflict(HippoGraphError):
    """Something that must be unique exists already, or changed meanwhile (``CONFLICT``)."""


class Unavailable(HippoGraphError):
    """A dependency of the server failed (``UNAVAILABLE``); repeating the call is safe,
    unless the message says the change may have been made (read it back first)."""


class RateLimited(HippoGraphError):
    """Too many requests for this key (``RATE_LIMITED``, HTTP 429).

    ``retry_after`` is the server's ``Retry-After`` in seconds (None if absent).
    """

    def __init__(
        self, code: str, message: str, field: str | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(code, message, field)
        self.retry_after = retry_after


class InvalidOperation(HippoGraphError):
    """GraphQL refused the request before running it (``GRAPHQL_VALIDATION_FAILED``).

    Either a value of the wrong type (untyped code passing ``42`` as a name)
    or a server whose schema no longer has what the client asks for.
    """


class ServerError(HippoGraphError):
    """A server bug (``INTERNAL``), or an answer that is not the API's JSON."""


class JobFailed(HippoGraphError):
    """A job the client waited for ended ``FAILED``; ``job`` is its last state."""

    def __init__(self, job: Any) -> None:
        super().__init__("JOB_FAILED", f"job {job.id} failed: {job.error or 'no reason given'}")
        self.job = job


class JobTimeout(HippoGraphError):
    """A job was still unfinished when the client stopped waiting; ``job_id`` names it."""

    def __init__(self, job_id: str, status: str, timeout: float) -> None:
        super().__init__(
            "JOB_TIMEOUT", f"job {job_id} was still {status} after {timeout:g} s", None
        )
        self.job_id = job_id
        self.status = status


_BY_CODE: dict[str, type[HippoGraphError]] = {
    "BAD_USER_INPUT": BadUserInput,
    "BAD_REQUEST": BadUserInput,
    "PAYLOAD_TOO_LARGE": BadUserInput,
    "NOT_FOUND": NotFound,
    "UNAUTHENTICATED": Unauthenticated,
    "FORBIDDEN": Forbidden,
    "CONFLICT": Conflict,
    "UNAVAILABLE": Unavailable,
    "RATE_LIMITED": RateLimited,
    "GRAPHQL_VALIDATION_FAILED": InvalidOperation,
    "INTERNAL": ServerError,
}


def error_for(
    code: str,
    message: str,
    *,
    field: str | None = None,
    id: str | None = None,
    retry_after: float | None = None,
) -> HippoGraphError:
    """The exception for ``code`` (``HippoGraphError`` itself for a code it does not know)."""
    kind = _BY_CODE.get(code, HippoGraphError)
    if kind is NotFound:
        return NotFound(code, message, field, id)
    if kind is RateLimited:
        return RateLimited(code, message, field, retry_after)
    return kind(code, message, field)


def from_graphql_error(
    error: Mapping[str, Any], retry_after: float | None = None
) -> HippoGraphError:
    """The exception for one entry of a response's ``errors`` (``INTERNAL`` without a code)."""
    extensions = error.get("extensions")
    field = extensions.get("field") if isinstance(extensions, Mapping) else None
    return error_for(
        code_of(error) or "INTERNAL",
        str(error.get("message", "")),
        field=field if isinstance(field, str) else None,
        retry_after=retry_after,
    )


def code_of(error: Mapping[str, Any]) -> str | None:
    """The API's error code in one entry of a response's ``errors``, if it has one."""
    extensions = error.get("extensions")
    code = extensions.get("code") if isinstance(extensions, Mapping) else None
    return code if isinstance(code, str) and code else None


def from_error_member(payload: Mapping[str, Any]) -> HippoGraphError:
    """The exception for a mutation's typed error member (``InputError``, ``NotFoundError``…)."""
    return error_for(
        str(payload["code"]),
        str(payload["message"]),
        field=payload.get("field"),
        id=payload.get("missingId"),
    )
