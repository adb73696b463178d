"""Expected errors as schema types, for the success-or-error unions of mutations."""

from __future__ import annotations

import strawberry

from hippograph import errors


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
