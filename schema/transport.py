"""Subscriptions are served over the websocket only.

Strawberry would also run a subscription posted over HTTP (its resolver's
stream is not a value: an internal error). Its multipart HTTP subscriptions
are not enabled (the view lists only graphql-transport-ws). One transport
keeps one admission path (``hippograph.server.websocket``), so a subscription over
HTTP is ``BAD_USER_INPUT`` saying where to go.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphql import ExecutionResult, GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from hippograph.errors import InvalidInput

OVER_HTTP = (
    "subscriptions are served over a websocket on /graphql "
    "(the graphql-transport-ws protocol); queries and mutations over HTTP"
)


class SubscriptionsOverWebsocket(SchemaExtension):
    """Refuses a subscription that did not come over the websocket."""

    def on_execute(self) -> Iterator[None]:
        """Before execution: the operation's type and transport are known."""
        context = self.execution_context
        # Strawberry sets ``connection_params`` ({} at least) on a websocket's context only.
        over_http = getattr(context.context, "connection_params", None) is None
        if context.operation_type is OperationType.SUBSCRIPTION and over_http:
            # A result set here is the operation's answer (nothing executes);
            # the error-code extension then codes it like any other.
            refusal = GraphQLError(OVER_HTTP, original_error=InvalidInput(OVER_HTTP))
            context.result = ExecutionResult(data=None, errors=[refusal])
        yield
