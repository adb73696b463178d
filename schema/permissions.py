"""Who may call a root field, declared on the field (strawberry permissions).

Every root query and mutation needs an authenticated caller: the HTTP layer
(``hippograph.server.graphql_view``) has already turned the request's key into
a ``Principal``, or left none when the request sent no key. A field declared
with :func:`authenticated` refuses the latter before its resolver runs, with
the same ``UNAUTHENTICATED`` error as everywhere else.
"""

from __future__ import annotations

from typing import Any

from strawberry.extensions.field_extension import FieldExtension
from strawberry.permission import BasePermission, PermissionExtension

from hippograph.errors import Unauthenticated
from schema.context import Info

_NO_KEY = "send an API key: Authorization: Bearer <key>"


class Authenticated(BasePermission):
    """The request carried a valid API key."""

    message = _NO_KEY

    def has_permission(self, source: Any, info: Info, **kwargs: Any) -> bool:
        """True when the request has a caller."""
        return info.context.caller is not None

    def on_unauthorized(self) -> None:
        """Refuse as the rest of the API does: ``Unauthenticated`` (code ``UNAUTHENTICATED``)."""
        raise Unauthenticated(_NO_KEY)


def authenticated() -> list[FieldExtension]:
    """The extensions of a field only an authenticated caller may use.

    No schema directive is added: the published schema stays what it was, and
    every root field needs a key anyway.
    """
    return [PermissionExtension([Authenticated()], use_directives=False)]
