"""Names each GraphQL request's operation for the access log and the latency metric.

The name is ``<type>:<first root field>`` (``query:search``,
``mutation:memorize``): root fields come from the schema, so the names are
few and bounded, unlike the client-chosen ``operationName``; a field the
schema does not have is ``unknown``.
"""

from __future__ import annotations

from collections.abc import Iterator

from graphql.language import FieldNode, OperationDefinitionNode
from strawberry.extensions import SchemaExtension

_INTROSPECTION = frozenset({"__typename", "__schema", "__type"})
# Where the name is left in the ASGI scope's state for the HTTP middleware.
OPERATION_STATE_KEY = "hippograph.operation"


class NameOperation(SchemaExtension):
    """Leaves the operation's name in the request scope once the document is parsed."""

    def on_validate(self) -> Iterator[None]:
        # After parsing, before validation: a request refused by validation
        # (too deep, too many aliases) is still named by what it asked for.
        name = self._name()
        request = getattr(self.execution_context.context, "request", None)
        if name is not None and request is not None:
            request.scope.setdefault("state", {})[OPERATION_STATE_KEY] = name
        yield

    def _name(self) -> str | None:
        document = self.execution_context.graphql_document
        if document is None:
            return None
        wanted = self.execution_context.operation_name
        for definition in document.definitions:
            if not isinstance(definition, OperationDefinitionNode):
                continue
            if wanted is not None and (definition.name is None or definition.name.value != wanted):
                continue
            fields = [s for s in definition.selection_set.selections if isinstance(s, FieldNode)]
            root = fields[0].name.value if fields else "fragment"
            kind = definition.operation.value
            if fields and not self._is_root_field(root, kind):
                # Named before validation: a field the schema lacks must not
                # become a label value (anyone could add series without end).
                root = "unknown"
            return f"{kind}:{root}"
        return None

    def _is_root_field(self, name: str, kind: str) -> bool:
        if name in _INTROSPECTION:
            return kind == "query" or name == "__typename"
        schema = self.execution_context.schema
        return schema.get_field_for_type(name, kind.capitalize()) is not None
