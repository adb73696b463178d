"""Expected errors as schema types, for the success-or-error unions of mutations."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar, cast, get_args

import strawberry

from hippograph import errors

R = TypeVar("R")
T = TypeVar("T")


@strawberry.interface(description="Something the caller can fix; nothing was written.")
class Error:
    message: str
    code: str


@strawberry.type(description="An input value is invalid; `field` names it.")
class InputError(Error):
    field: str | None


@strawberry.type(description="The id does not exist or is not visible to this key.")
class NotFoundError(Error):
    id: str


@strawberry.type(description="Something that must be unique exists already.")
class ConflictError(Error):
    pass


@strawberry.type(description="This API key may not do this.")
class ForbiddenError(Error):
    pass


@strawberry.type(
    description="A dependency (an LLM, the job queue) failed; what was stored is named in "
    "`message`, and repeating the call is safe."
)
class UnavailableError(Error):
    pass


def error_type(exc: errors.HippoError) -> Error:
    """The schema error for an expected error; anything else is re-raised."""
    if isinstance(exc, errors.InvalidInput):
        return InputError(message=exc.message, code=exc.code, field=exc.field)
    if isinstance(exc, errors.NotFound):
        return NotFoundError(message=exc.message, code=exc.code, id=exc.id)
    if isinstance(exc, errors.Conflict):
        return ConflictError(message=exc.message, code=exc.code)
    if isinstance(exc, errors.Forbidden):
        return ForbiddenError(message=exc.message, code=exc.code)
    if isinstance(exc, errors.Unavailable):
        return UnavailableError(message=exc.message, code=exc.code)
    raise exc


class Outcome(Generic[R]):
    """How one mutation answers: its success type or an error its union declares.

    ``Outcome[CreateUserResult](CreateUserResult)`` reads the union's error
    members once; calling it runs the work and maps an expected failure to its
    schema error, typed as the mutation's own result. An expected failure the
    union does not declare is raised as it is (a top-level error with its code)
    rather than handed to strawberry as a member the union does not have.
    """

    def __init__(self, union: object) -> None:
        members = get_args(get_args(union)[0])
        self._errors = tuple(m for m in members if isinstance(m, type) and issubclass(m, Error))
        if not self._errors:
            raise TypeError(f"{union!r} declares no expected errors")

    async def __call__(self, call: Callable[[], Awaitable[T]], ok: Callable[[T], R]) -> R:
        """``ok(await call())``, or the schema error for an expected failure."""
        try:
            value = await call()
        except errors.HippoError as exc:
            shown = error_type(exc)
            if not isinstance(shown, self._errors):
                raise
            return cast(R, shown)
        return ok(value)
