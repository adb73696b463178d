"""The client's record types, written from the fragments its operations select.

A fragment of plain fields (``fragment UserFields on User { id name
createdAt }``) becomes a frozen dataclass named after its type, one field per
selected field, in the fragment's order and in snake_case, typed from the
schema: a nullable field is ``X | None``, a list a tuple, an enum the client's
enum, an object either the class of the fragment it spreads or a class of its
own for a selection written in place. So a field added to a fragment is in
the client's type the next time ``python -m codegen`` runs, and a field the
schema changes is typed anew. Fragments that branch on the type (``...
on``) are read by hand-written classes: they are not records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    SelectionSetNode,
)

from codegen.render import dataclass_head, dataclass_module, leaf_type, snake

Fields = GraphQLObjectType | GraphQLInterfaceType


@dataclass
class _Classes:
    """The classes written so far, in order, and the enums they use."""

    schema: GraphQLSchema
    fragments: dict[str, FragmentDefinitionNode]
    text: dict[str, list[str]] = field(default_factory=dict)
    enums: set[str] = field(default_factory=set)

    def record(self, kind: Fields, selection: SelectionSetNode) -> str:
        """The class of ``kind`` with ``selection``'s fields, written once."""
        if kind.name in self.text:
            return kind.name
        self.text[kind.name] = []  # claimed before its fields, which may refer back
        lines: list[str] = []
        for node in selection.selections:
            if not isinstance(node, FieldNode) or node.alias is not None:
                raise TypeError(f"{kind.name}: a record selects plain fields only")
            name = node.name.value
            python = self._python(kind.fields[name].type, node.selection_set)
            lines.append(f"    {snake(name)}: {python}")
        self.text[kind.name] = dataclass_head(kind.name, kind.description or kind.name) + lines
        return kind.name

    def _python(self, kind: GraphQLOutputType, selection: SelectionSetNode | None) -> str:
        if not isinstance(kind, GraphQLNonNull):
            return f"{self._python(GraphQLNonNull(kind), selection)} | None"
        inner = kind.of_type
        if isinstance(inner, GraphQLList):
            return f"tuple[{self._python(inner.of_type, selection)}, ...]"
        leaf = leaf_type(inner, self.enums)
        if leaf is not None:
            return leaf
        if isinstance(inner, GraphQLObjectType | GraphQLInterfaceType) and selection is not None:
            return self.record(inner, self._spread(selection))
        raise TypeError(f"no Python type for {inner!r}")

    def _spread(self, selection: SelectionSetNode) -> SelectionSetNode:
        """A selection that only spreads a fragment: that fragment's selection."""
        nodes = selection.selections
        if len(nodes) == 1 and isinstance(nodes[0], FragmentSpreadNode):
            return self.fragments[nodes[0].name.value].selection_set
        return selection


def is_record(fragment: FragmentDefinitionNode) -> bool:
    """Whether ``fragment`` selects plain fields only (no ``... on``, no ``__typename``)."""
    return all(
        isinstance(node, FieldNode) and not node.name.value.startswith("__")
        for node in fragment.selection_set.selections
    )


def records_module(schema: GraphQLSchema, document: DocumentNode) -> str:
    """Every record fragment of ``document`` as a frozen dataclass (see the module's text)."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    classes = _Classes(schema, fragments)
    for fragment in fragments.values():
        if is_record(fragment):
            kind = schema.type_map[fragment.type_condition.name.value]
            assert isinstance(kind, GraphQLObjectType | GraphQLInterfaceType), kind
            classes.record(kind, fragment.selection_set)
    about = "The API types the client's operations select, as frozen dataclasses."
    written = [line for text in classes.text.values() for line in text]
    return dataclass_module(about, "operations/client.graphql", classes.enums, written)
