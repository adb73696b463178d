"""Every GraphQL document the client sends, read from ``operations.graphql`` beside this module.

Each method of ``AsyncHippoGraph`` names its operation there. That file is the
client's part of the project's one folder of operations
(``operations/client.graphql`` links to it, and tests/test_contract.py
validates each operation there against the schema). An operation is sent
with the fragments it spreads, which a small scanner finds here, so the
client needs no GraphQL library.
"""

from __future__ import annotations

import re
from importlib.resources import files

_START = re.compile(r"\b(query|mutation|fragment)\s+([_A-Za-z]\w*)")
_SPREAD = re.compile(r"\.\.\.\s*([_A-Za-z]\w*)")
_COMMENT = re.compile(r"#[^\n]*")


def _definitions(source: str) -> dict[str, tuple[str, str]]:
    """Each top-level definition by name: its keyword and its text (the file's own
    documents hold no string with a brace or a ``#`` in it)."""
    source = _COMMENT.sub("", source)
    found: dict[str, tuple[str, str]] = {}
    at = 0
    while (start := _START.search(source, at)) is not None:
        depth, end = 0, source.index("{", start.end())
        while True:
            depth += {"{": 1, "}": -1}.get(source[end], 0)
            end += 1
            if depth == 0:
                break
        found[start.group(2)] = (start.group(1), source[start.start() : end])
        at = end
    return found


def documents(source: str) -> dict[str, str]:
    """Each operation of ``source`` by name, followed by every fragment it spreads."""
    definitions = _definitions(source)
    found: dict[str, str] = {}
    for name, (keyword, text) in definitions.items():
        if keyword == "fragment":
            continue
        needed: list[str] = []
        todo = _SPREAD.findall(text)
        while todo:  # fragments spread by fragments too, each once
            spread = todo.pop(0)
            if spread != "on" and spread not in needed:
                needed.append(spread)
                todo.extend(_SPREAD.findall(definitions[spread][1]))
        found[name] = "\n".join([text] + [definitions[n][1] for n in needed]) + "\n"
    return found


_DOCUMENTS = documents(files(__package__).joinpath("operations.graphql").read_text("utf-8"))

ALL = tuple(_DOCUMENTS.values())
"""Every operation of the file, as sent."""


def document(name: str) -> str:
    """The operation ``name`` of the file, with its fragments (``KeyError`` if it has none:
    ``clients.py`` asks for each at import, so a misspelt name fails at once)."""
    return _DOCUMENTS[name]
