"""The schema object: roots, concrete types, and the protective extensions."""

from __future__ import annotations

import functools

import strawberry
from graphql.error import GraphQLError
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.types import ExecutionContext

from hippograph.settings import LimitSettings
from resolvers.mutation import Mutation
from resolvers.query import Query
from resolvers.subscription import Subscription
from schema.masking import ErrorCodes, is_unexpected
from schema.memory import MEMORY_TYPES
from schema.operation import NameOperation
from schema.surrogates import RefuseSurrogates
from schema.transport import SubscriptionsOverWebsocket
from schema.types import MemUnit, Message
from schema.validated import AcceptedTexts, skip_validation_seen


class HippoSchema(strawberry.Schema):
    """Strawberry's schema, logging only the errors that are bugs.

    Expected errors (a missing key, a bad id) are answers, not incidents; a log
    full of their tracebacks would hide the ones that matter.
    """

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        unexpected = [e for e in errors if is_unexpected(e)]
        if unexpected:
            super().process_errors(unexpected, execution_context)


def shared_schema(limits: LimitSettings) -> strawberry.Schema:
    """The schema for ``limits``, built once per process and set of limits.

    Building one takes about 20 ms of CPU, paid by every app a process makes
    (a test makes hundreds). A schema holds nothing an app may not share: the
    texts it remembers as valid are valid for any app with these limits.
    """
    return _built(limits.model_dump_json())


@functools.cache
def _built(limits: str) -> strawberry.Schema:
    # Keyed on every limit, not only those the schema reads today.
    return build_schema(LimitSettings.model_validate_json(limits))


def build_schema(limits: LimitSettings) -> strawberry.Schema:
    """The HippoGraph schema with depth, token and alias limits on (a new one each call)."""
    accepted = AcceptedTexts()
    return HippoSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        types=[*MEMORY_TYPES, MemUnit, Message],
        # Factories, not instances: each operation gets fresh extension state.
        extensions=[
            lambda: QueryDepthLimiter(max_depth=limits.max_query_depth),
            lambda: MaxTokensLimiter(max_token_count=limits.max_tokens),
            lambda: MaxAliasesLimiter(max_alias_count=limits.max_aliases),
            # After the limits: a text is remembered only once they passed it too.
            skip_validation_seen(accepted),
            ErrorCodes,
            NameOperation,
            RefuseSurrogates,
            SubscriptionsOverWebsocket,
        ],
    )
