"""Error codes on every GraphQL error, and masking of the unexpected ones.

A strawberry extension working on the operation's finished result through the
public ``on_operation`` hook, so no private strawberry method is overridden
and strawberry need not be pinned to one version for it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing
from typing import TypeVar

from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types.execution import ExecutionResult, StreamExecutionResult

from hippograph.errors import HippoError, InvalidInput

MASKED_MESSAGE = "Unexpected error."
T = TypeVar("T")
log = logging.getLogger(__name__)


def is_unexpected(error: GraphQLError) -> bool:
    """Whether ``error`` is a bug: a Python error raised while executing a field."""
    # Errors without a path happen before execution: parsing, validation,
    # coercion of variables (a bad DateTime, a missing ID). They are the
    # client's, even when a Python error sits behind them.
    original = error.original_error
    return original is not None and not isinstance(original, HippoError) and error.path is not None


def coded(error: GraphQLError) -> GraphQLError:
    """``error`` with ``extensions.code``; a bug's message and cause are replaced."""
    if is_unexpected(error):
        return GraphQLError(
            message=MASKED_MESSAGE,
            nodes=error.nodes,
            source=error.source,
            positions=error.positions,
            path=error.path,
            extensions={"code": "INTERNAL"},
        )
    original = error.original_error
    if isinstance(original, HippoError):
        error.extensions = {"code": original.code}
        if isinstance(original, InvalidInput) and original.field:
            error.extensions["field"] = original.field
    elif not error.extensions or "code" not in error.extensions:
        error.extensions = {**(error.extensions or {}), "code": "GRAPHQL_VALIDATION_FAILED"}
    return error


class ErrorCodes(SchemaExtension):
    """Every error gets ``extensions.code``; unexpected ones are masked.

    Expected errors (``HippoError``) keep their message and code, GraphQL's own
    validation errors keep theirs, and anything else — a bug — is replaced by
    "Unexpected error." so no internals leak.
    """

    def on_operation(self) -> Iterator[None]:
        """Code the errors once the operation's result is known."""
        yield
        # Strawberry sets the result before the operation hook resumes, on the
        # pre-execution paths (parse, validation) as on execution.
        result = self.execution_context.result
        if result is not None and result.errors:
            result.errors = [coded(error) for error in result.errors]

    def on_stream_result(self, result: StreamExecutionResult) -> Iterator[None]:
        """Code each result of a subscription before it is sent (the operation hook comes last)."""
        if isinstance(result, ExecutionResult) and result.errors:
            result.errors = [coded(error) for error in result.errors]
        yield


async def masked_stream(stream: AsyncGenerator[T, None]) -> AsyncGenerator[T, None]:
    """A subscription's ``stream``, with a bug raised in it masked as a field's would be.

    An error raised while a subscription's stream runs reaches the result
    without a path, which is how errors before execution (the client's) look
    too; so the stream itself turns a bug into ``INTERNAL`` "Unexpected
    error.", logged here with its traceback.
    """
    async with aclosing(stream):
        try:
            async for item in stream:
                yield item
        except HippoError:
            raise
        except Exception:
            log.exception("a subscription failed")
            raise HippoError(MASKED_MESSAGE) from None
