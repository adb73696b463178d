"""Cypher text lives in constants declared through :func:`cypher`.

Registering every query lets one test hand them all to Neo4j's own parser, so
nothing that only ArcadeDB accepts can slip in. Queries are fixed strings with
``$parameters``; labels and relationship types never come from input.
"""

from __future__ import annotations

from typing import LiteralString

_REGISTRY: dict[str, LiteralString] = {}


def cypher(name: str, text: LiteralString) -> LiteralString:
    """Declare the query ``text`` under ``name`` (module.CONSTANT) and return it."""
    if name in _REGISTRY and _REGISTRY[name] != text:
        raise ValueError(f"two different queries are both named {name!r}")
    _REGISTRY[name] = text
    return text


def registered() -> dict[str, LiteralString]:
    """Every query declared so far, by name (import the graph modules first)."""
    return dict(_REGISTRY)


# Who may see a node, as a predicate on the variable ``n``: with ``$scope`` null
# (an admin) everyone; otherwise the node's owner, or one of its owners for
# nodes shared by several users (MemUnits of a group conversation), must be in
# the scope. Every traversal applies it to every node it reaches.
VISIBLE_N: LiteralString = (
    "($scope IS NULL OR n.user_id IN $scope"
    " OR any(u IN coalesce(n.user_ids, []) WHERE u IN $scope))"
)

# Properties of a node of any provenance label, without its vector and tokens.
NODE_PROPS_N: LiteralString = "n {.*, embedding: null, search_text: null, user_key: null}"
