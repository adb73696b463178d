"""The Python modules ``python -m codegen`` writes, as text."""

from __future__ import annotations

import textwrap

from graphql import GraphQLEnumType, GraphQLSchema

_NOTICE = "# Written by `python -m codegen` from {source}: edit that, then run it again.\n"


def enums_module(schema: GraphQLSchema) -> str:
    """The schema's enums as ``StrEnum`` classes, by name, with their descriptions."""
    lines = [
        '"""The schema\'s enums, as Python string enums."""',
        "",
        _NOTICE.format(source="schema.graphql"),
        "from __future__ import annotations",
        "",
        "from enum import StrEnum",
    ]
    for name in sorted(schema.type_map):
        kind = schema.type_map[name]
        if not isinstance(kind, GraphQLEnumType) or name.startswith("__"):
            continue
        lines += ["", "", f"class {name}(StrEnum):", *_docstring(kind.description or name), ""]
        lines += [f'    {value} = "{value}"' for value in kind.values]
    lines.append("")
    return "\n".join(lines)


def _docstring(text: str) -> list[str]:
    """A class docstring's lines, wrapped to the line length ruff allows."""
    words = " ".join(text.split())
    if len(words) <= 90:
        return [f'    """{words}"""']
    wrapped = textwrap.wrap(words, 92, initial_indent="    ", subsequent_indent="    ")
    return ['    """', *wrapped, '    """']
