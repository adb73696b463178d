"""Runs GraphQL operations in-process for the MCP tools, as one caller.

Nothing the API decides is decided again here: the document goes through the
same schema, extensions (limits, error codes, masking) and resolvers as a
``POST /graphql`` with the caller's key. What comes back is either the root
field's data or a ``ToolFailure`` carrying the code and message GraphQL gave.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import strawberry

from hippograph.auth import Principal
from hippograph.services import Services
from resolvers.loaders import build_loaders
from schema.context import Context


class ToolFailure(Exception):
    """An operation's expected error: GraphQL's ``extensions.code`` (or the
    error type's ``code``), its message, and the offending field when known."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field

    def as_dict(self) -> dict[str, Any]:
        """The error as a tool's structured result carries it."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        return error


@dataclass(frozen=True)
class Gateway:
    """The app's schema and services, for running one operation as ``principal``."""

    schema: strawberry.Schema
    services: Callable[[], Services]

    async def run(
        self, principal: Principal, document: str, variables: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The operation's ``data``; its first error as a ``ToolFailure``."""
        services = self.services()
        context = Context(
            services=services,
            loaders=build_loaders(services, principal),
            caller=principal,
        )
        result = await self.schema.execute(
            document, variable_values=variables or {}, context_value=context
        )
        if result.errors:
            error = result.errors[0]
            extensions = error.extensions or {}
            raise ToolFailure(
                str(extensions.get("code", "INTERNAL")), error.message, extensions.get("field")
            )
        assert result.data is not None  # no errors: GraphQL always answers data
        return result.data

    async def outcome(
        self,
        principal: Principal,
        document: str,
        variables: dict[str, Any],
        field: str,
    ) -> dict[str, Any]:
        """A mutation's result union: the success member, or its error member as a failure.

        The document must select ``__typename`` and ``... on Error { code message }``
        (and ``... on InputError { field }``) on ``field``, as ``operations.py`` does.
        """
        data: dict[str, Any] = (await self.run(principal, document, variables))[field]
        if data["__typename"].endswith("Error"):
            raise ToolFailure(data["code"], data["message"], data.get("field"))
        return data
