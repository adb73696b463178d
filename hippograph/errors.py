"""One error hierarchy for every layer.

Services raise these; the GraphQL layer maps each to an error type in a
mutation's payload union or to a GraphQL error with an ``extensions.code``.
Anything else that escapes is a bug and is masked as an internal error.
"""

from __future__ import annotations


class HippoError(Exception):
    """Base of every expected error; ``code`` is what clients see."""

    code = "INTERNAL"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(HippoError):
    """A value failed validation; ``field`` names it (dotted path)."""

    code = "BAD_USER_INPUT"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotFound(HippoError):
    """The thing does not exist, or the caller may not see it (never tell which)."""

    code = "NOT_FOUND"

    def __init__(self, kind: str, id: str) -> None:
        super().__init__(f"{kind} {id!r} not found")
        self.kind = kind
        self.id = id


class Conflict(HippoError):
    """The write would duplicate something that must be unique."""

    code = "CONFLICT"


class Forbidden(HippoError):
    """The caller is known but this key may not do this."""

    code = "FORBIDDEN"


class Unauthenticated(HippoError):
    """No API key, or a key that is not known."""

    code = "UNAUTHENTICATED"


class Unavailable(HippoError):
    """A dependency (graph, queue, model) cannot be reached right now."""

    code = "UNAVAILABLE"
    # Whether the same work tried again may succeed: False where the dependency
    # answered, and the answer (a model's invalid one, a refused request) will
    # not change by asking again at once.
    again = True


class Contended(Unavailable):
    """The graph kept refusing a transaction for contention (a deadlock, a page another
    writer changed) past its retry budget: nothing was written, and trying again later
    is expected to work."""


class ConfigError(HippoError):
    """The configuration cannot work; the message names the setting."""

    code = "CONFIG"
