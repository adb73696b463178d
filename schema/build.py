"""The schema object: roots, concrete types, and the protective extensions."""

from __future__ import annotations

import strawberry
from graphql.error import GraphQLError
from strawberry.extensions import (
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    QueryDepthLimiter,
)
from strawberry.types import ExecutionContext

from hippograph.errors import HippoError, InvalidInput
from hippograph.settings import LimitSettings
from resolvers.mutation import Mutation
from resolvers.query import Query
from schema.memory import MEMORY_TYPES
from schema.operation import NameOperation
from schema.surrogates import RefuseSurrogates
from schema.types import MemUnit, Message


class ErrorCodes(MaskErrors):
    """Every error gets ``extensions.code``; unexpected ones are masked.

    Expected errors (``HippoError``) keep their message and code, GraphQL's own
    validation errors keep theirs, and anything else — a bug — is replaced by
    "Unexpected error." so no internals leak.
    """

    def __init__(self) -> None:
        super().__init__(should_mask_error=self._is_unexpected)

    @staticmethod
    def _is_unexpected(error: GraphQLError) -> bool:
        # Errors without a path happen before execution: parsing, validation,
        # coercion of variables (a bad DateTime, a missing ID). They are the
        # client's, even when a Python error sits behind them.
        original = error.original_error
        return (
            original is not None and not isinstance(original, HippoError) and error.path is not None
        )

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        masked = super().anonymise_error(error)
        masked.extensions = {"code": "INTERNAL"}
        return masked

    def _process_errors(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        processed = super()._process_errors(errors)
        for error in processed:
            original = error.original_error
            if isinstance(original, HippoError):
                error.extensions = {"code": original.code}
                if isinstance(original, InvalidInput) and original.field:
                    error.extensions["field"] = original.field
            elif not error.extensions or "code" not in error.extensions:
                error.extensions = {**(error.extensions or {}), "code": "GRAPHQL_VALIDATION_FAILED"}
        return processed


class HippoSchema(strawberry.Schema):
    """Strawberry's schema, logging only the errors that are bugs.

    Expected errors (a missing key, a bad id) are answers, not incidents; a log
    full of their tracebacks would hide the ones that matter.
    """

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        unexpected = [e for e in errors if ErrorCodes._is_unexpected(e)]
        if unexpected:
            super().process_errors(unexpected, execution_context)


def build_schema(limits: LimitSettings) -> strawberry.Schema:
    """The HippoGraph schema with depth, token and alias limits on."""
    return HippoSchema(
        query=Query,
        mutation=Mutation,
        types=[*MEMORY_TYPES, MemUnit, Message],
        # Factories, not instances: each operation gets fresh extension state.
        extensions=[
            lambda: QueryDepthLimiter(max_depth=limits.max_query_depth),
            lambda: MaxTokensLimiter(max_token_count=limits.max_tokens),
            lambda: MaxAliasesLimiter(max_alias_count=limits.max_aliases),
            ErrorCodes,
            NameOperation,
            RefuseSurrogates,
        ],
    )
