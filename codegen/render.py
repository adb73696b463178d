"""The Python modules ``python -m codegen`` writes, as text."""

from __future__ import annotations

import textwrap

from graphql import (
    GraphQLEnumType,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLScalarType,
    GraphQLSchema,
    Undefined,
)

NOTICE = "# Written by `python -m codegen` from {source}: edit that, then run it again.\n"


def enums_module(schema: GraphQLSchema) -> str:
    """The schema's enums as ``StrEnum`` classes, by name, with their descriptions."""
    lines = [
        '"""The schema\'s enums, as Python string enums."""',
        "",
        NOTICE.format(source="schema.graphql"),
        "from __future__ import annotations",
        "",
        "from enum import StrEnum",
    ]
    for name in sorted(schema.type_map):
        kind = schema.type_map[name]
        if not isinstance(kind, GraphQLEnumType) or name.startswith("__"):
            continue
        lines += ["", "", f"class {name}(StrEnum):", *docstring(kind.description or name), ""]
        lines += [f'    {value} = "{value}"' for value in kind.values]
    lines.append("")
    return "\n".join(lines)


def docstring(text: str) -> list[str]:
    """A class docstring's lines, wrapped to the line length ruff allows."""
    words = " ".join(text.split())
    if len(words) <= 90:
        return [f'    """{words}"""']
    wrapped = textwrap.wrap(words, 92, initial_indent="    ", subsequent_indent="    ")
    return ['    """', *wrapped, '    """']


# The schema's input objects a caller of the client builds, by the name the
# client gives each (the rest it builds itself from a method's arguments).
CLIENT_INPUTS = {
    "MessageInput": "NewMessage",
    "MemoryOpInput": "MemoryOpFields",
    "MemoryFilterInput": "MemoryFilter",
    "ScoringInput": "Scoring",
}
SCALARS = {
    "ID": "str",
    "String": "str",
    "Int": "int",
    "Float": "float",
    "Boolean": "bool",
    "DateTime": "datetime",
}


def leaf_type(kind: GraphQLNamedType, enums: set[str]) -> str | None:
    """The Python type of an enum (added to ``enums``, which the module imports) or a
    scalar; None for any other named type."""
    if isinstance(kind, GraphQLEnumType):
        enums.add(kind.name)
        return kind.name
    if isinstance(kind, GraphQLScalarType) and kind.name in SCALARS:
        return SCALARS[kind.name]
    return None


def dataclass_head(name: str, about: str) -> list[str]:
    """The lines that open a written frozen dataclass ``name``, its docstring ``about``."""
    return ["", "", "@dataclass(frozen=True)", f"class {name}:", *docstring(about), ""]


def _python_type(kind: GraphQLInputType, enums: set[str]) -> str:
    """A nullable-stripped GraphQL input type as the Python type the client holds."""
    inner = kind.of_type if isinstance(kind, GraphQLNonNull) else kind
    if isinstance(inner, GraphQLList):
        return f"tuple[{_python_type(inner.of_type, enums)}, ...]"
    leaf = leaf_type(inner, enums)
    if leaf is None:
        raise TypeError(f"no Python type for {inner!r}")
    return leaf


def _has_default(field: GraphQLInputField) -> bool:
    """Whether the schema gives the field a default (graphql-core 3.3 keeps an SDL's on the
    field's syntax node)."""
    node = field.ast_node
    return field.default_value is not Undefined or (
        node is not None and node.default_value is not None
    )


def snake(name: str) -> str:
    """``createdAt`` → ``created_at``."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def inputs_module(schema: GraphQLSchema) -> str:
    """``CLIENT_INPUTS`` as frozen dataclasses: a field the schema requires (non-null, no
    default) is required, in the schema's order; every other is ``None`` by default, which
    the client leaves out of the variables, so the server's default applies."""
    enums: set[str] = set()
    classes: list[str] = []
    for schema_name, name in CLIENT_INPUTS.items():
        kind = schema.type_map[schema_name]
        assert isinstance(kind, GraphQLInputObjectType), schema_name
        required: list[str] = []
        optional: list[str] = []
        for field_name, field in kind.fields.items():
            python = _python_type(field.type, enums)
            needed = isinstance(field.type, GraphQLNonNull) and not _has_default(field)
            if needed:
                required.append(f"    {snake(field_name)}: {python}")
            else:
                optional.append(f"    {snake(field_name)}: {python} | None = None")
        about = (kind.description or schema_name).rstrip(".")
        doc = f"{about} (GraphQL's {schema_name}); unset members keep the server's defaults."
        classes += dataclass_head(name, doc) + required + optional
    about = "The schema's input objects the client sends, as frozen dataclasses."
    return dataclass_module(about, "schema.graphql", enums, classes)


def dataclass_module(about: str, source: str, enums: set[str], classes: list[str]) -> str:
    """A written module of frozen dataclasses: its docstring, notice, imports, then ``classes``."""
    lines = [
        f'"""{about}"""',
        "",
        NOTICE.format(source=source),
        "from __future__ import annotations",
        "",
        "from dataclasses import dataclass",
        "from datetime import datetime",
        "",
        "from hippograph_client.enums import (",
        *[f"    {name}," for name in sorted(enums)],
        ")",
        *classes,
        "",
    ]
    return "\n".join(lines)
