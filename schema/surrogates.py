"""Refuse variables holding lone UTF-16 surrogates before anything runs.

JSON can spell a surrogate on its own (``"\\ud800"``) and so can a body of
raw bytes ``ED A0 80`` (Python's JSON decoder lets them through); Python then
holds a ``str`` that is not text. The model's tokenizer, the graph driver
and every UTF-8 encoder refuse it, deep inside a batch shared with other
callers. A surrogate written into the document itself is already refused by
GraphQL's lexer; this extension does the same for variables, naming the
argument the variable feeds (``input.messages[0].content``), so the answer is
``BAD_USER_INPUT`` and nothing runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError
from graphql.language import (
    ArgumentNode,
    DocumentNode,
    ListValueNode,
    Node,
    ObjectFieldNode,
    VariableDefinitionNode,
    VariableNode,
)
from strawberry.extensions import SchemaExtension

from hippograph.validation import surrogate_in


def first_surrogate(value: Any, path: str) -> tuple[str, str] | None:
    """The path of the first string holding a lone surrogate in ``value``, and the surrogate."""
    if isinstance(value, str):
        found = surrogate_in(value)
        return (path, found) if found else None
    if isinstance(value, dict):
        for key, item in value.items():
            key_found = surrogate_in(str(key))
            if key_found:
                return (path, key_found)
            hit = first_surrogate(item, f"{path}.{key}" if path else str(key))
            if hit:
                return hit
    if isinstance(value, list):
        for index, item in enumerate(value):
            hit = first_surrogate(item, f"{path}[{index}]")
            if hit:
                return hit
    return None


def variable_fields(document: DocumentNode) -> dict[str, str]:
    """For each variable, the first argument path it is used at (``input.messages``)."""
    places: dict[str, str] = {}

    def visit(node: Node, path: str) -> None:
        if isinstance(node, VariableNode):
            places.setdefault(node.name.value, path)
        elif isinstance(node, VariableDefinitionNode):
            return  # declares a variable; its uses are in the selections
        elif isinstance(node, ArgumentNode):
            visit(node.value, node.name.value)
        elif isinstance(node, ObjectFieldNode):
            visit(node.value, f"{path}.{node.name.value}")
        elif isinstance(node, ListValueNode):
            for index, item in enumerate(node.values):
                visit(item, f"{path}[{index}]")
        else:
            for key in node.keys:
                child = getattr(node, key, None)
                for item in child if isinstance(child, tuple | list) else (child,):
                    if isinstance(item, Node):
                        visit(item, path)

    visit(document, "")
    return places


class RefuseSurrogates(SchemaExtension):
    """Answers ``BAD_USER_INPUT`` (naming the field) when a variable holds a lone surrogate."""

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        variables = context.variables or {}
        hit = first_surrogate(variables, "")
        if hit is not None and context.graphql_document is not None:
            path, surrogate = hit
            name, _, rest = path.partition(".")
            name, bracket, index = name.partition("[")
            argument = variable_fields(context.graphql_document).get(name, f"${name}")
            field = argument + (f"[{index}" if bracket else "") + (f".{rest}" if rest else "")
            # Set before validation runs: strawberry then skips validation and
            # execution and answers with this error alone.
            context.pre_execution_errors = [
                GraphQLError(
                    f"{field} contains a lone UTF-16 surrogate ({surrogate}), which is not text",
                    extensions={"code": "BAD_USER_INPUT", "field": field},
                )
            ]
        yield
