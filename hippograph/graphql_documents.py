"""Operations read from a ``.graphql`` file: each with the fragments it spreads.

The benchmarks read theirs with it (``bench.common.document``), and
tests/test_contract.py every file of ``operations/``.
The client, which needs no GraphQL library, scans its one file itself
(``hippograph_client.operations``); the contract test holds the two to the
same documents.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graphql import (
    DefinitionNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    Node,
    OperationDefinitionNode,
    parse,
    visit,
)
from graphql.language import Visitor


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation as sent: its own text, then every fragment it needs."""

    name: str
    document: str


def _text(source: str, node: DefinitionNode) -> str:
    assert node.loc is not None  # parse() records locations
    return source[node.loc.start : node.loc.end]


def _spreads(node: Node) -> list[str]:
    names: list[str] = []

    class Spreads(Visitor):
        def enter_fragment_spread(self, spread: FragmentSpreadNode, *_: object) -> None:
            names.append(spread.name.value)

    visit(node, Spreads())
    return names


def operations(path: Path) -> list[Operation]:
    """Every named operation of ``path``, in file order, each a whole document."""
    source = path.read_text(encoding="utf-8")
    tree = parse(source)
    fragments = {d.name.value: d for d in tree.definitions if isinstance(d, FragmentDefinitionNode)}
    found: list[Operation] = []
    for definition in tree.definitions:
        if not isinstance(definition, OperationDefinitionNode):
            continue
        if definition.name is None:
            raise ValueError(f"{path.name}: every operation needs a name")
        needed: list[str] = []
        todo = _spreads(definition)
        while todo:  # fragments spread by fragments too, each once, first use first
            name = todo.pop(0)
            if name not in needed:
                needed.append(name)
                todo.extend(_spreads(fragments[name]))
        parts = [_text(source, definition)] + [_text(source, fragments[n]) for n in needed]
        found.append(Operation(definition.name.value, "\n".join(parts) + "\n"))
    return found
