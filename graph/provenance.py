"""Provenance: the subgraph a memory was made from (DOWN) or that was made from a node (UP).

A breadth-first walk, one level per query inside one read transaction: each
node is expanded once, so the cost grows with the size of the subgraph and
never with the number of paths through it (a reflection over reflections can
have thousands of paths to the same messages). Every node reached must pass
the tenant predicate, so a walk never steps into another user's data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import LiteralString

from neo4j import AsyncManagedTransaction

from graph.cypher import NODE_PROPS_N, VISIBLE_N, cypher
from graph.driver import GraphDriver, fetch
from graph.records import node_from
from hippograph.ids import IdKind, kind_of
from hippograph.models import Direction, Edge, EdgeType, Provenance, ProvenanceNode

# A step's edges come back as ONE record holding a list of rows
# [from id, type, id, element id, labels, props]: the driver decodes each
# record in Python, and 100 records took 14.7 ms a step on Neo4j 5.26 where
# one record of 100 rows took 6.9 (ArcadeDB: 5.6 and 3.1; bench.reflection).
_RETURN: LiteralString = (
    "RETURN collect([x.id, type(r), n.id, elementId(n), labels(n), " + NODE_PROPS_N + "]) AS rows"
)
_ROOT_RETURN: LiteralString = (
    " RETURN elementId(n) AS eid, labels(n) AS labels, " + NODE_PROPS_N + " AS props"
)

ROOT = {
    IdKind.MEMORY: cypher(
        "provenance.ROOT_MEMORY",
        "MATCH (n:Memory {id: $id}) WHERE " + VISIBLE_N + _ROOT_RETURN,
    ),
    IdKind.MEMUNIT: cypher(
        "provenance.ROOT_MEMUNIT",
        "MATCH (n:MemUnit {id: $id}) WHERE " + VISIBLE_N + _ROOT_RETURN,
    ),
    IdKind.MESSAGE: cypher(
        "provenance.ROOT_MESSAGE",
        "MATCH (n:Message {id: $id}) WHERE " + VISIBLE_N + _ROOT_RETURN,
    ),
}

# One expansion query per direction. The frontier travels as element ids,
# valid within the walk's one transaction: finding a node by element id is a
# direct seek on both servers, where finding it by our id is an index lookup
# per node (measured on ArcadeDB: 100 frontier nodes 3-6 ms against 12-36 ms).
# Only memories have SUMMARIZES/SUPERSEDES edges and MemUnits only
# DERIVED_FROM ones, so one pattern serves every label.
STEP: dict[Direction, LiteralString] = {
    Direction.DOWN: cypher(
        "provenance.DOWN",
        "UNWIND $frontier AS fe MATCH (x) WHERE elementId(x) = fe "
        "MATCH (x)-[r:DERIVED_FROM|SUMMARIZES|SUPERSEDES]->(n) "
        "WHERE " + VISIBLE_N + " " + _RETURN,
    ),
    Direction.UP: cypher(
        "provenance.UP",
        "UNWIND $frontier AS fe MATCH (x) WHERE elementId(x) = fe "
        "MATCH (x)<-[r:DERIVED_FROM|SUMMARIZES|SUPERSEDES]-(n) "
        "WHERE " + VISIBLE_N + " " + _RETURN,
    ),
}


class ProvenanceGraph:
    """Walks provenance edges."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def walk(
        self, root_id: str, depth: int, direction: Direction, scope: list[str] | None
    ) -> Provenance | None:
        """The subgraph within ``depth`` hops of ``root_id``; None if the root is not visible."""
        root_kind = kind_of(root_id)
        if root_kind not in ROOT:
            return None

        async def work(tx: AsyncManagedTransaction) -> Provenance | None:
            rows = await fetch(tx, ROOT[root_kind], {"id": root_id, "scope": scope})
            if not rows:
                return None
            nodes: dict[str, ProvenanceNode] = {
                root_id: node_from(rows[0]["labels"], rows[0]["props"])
            }
            edges: dict[tuple[str, str, str], Edge] = {}
            ground = direction is Direction.DOWN and "Message" in rows[0]["labels"]
            frontier = [] if ground else [rows[0]["eid"]]
            for _ in range(depth):
                frontier = await _expand(tx, frontier, direction, scope, nodes, edges)
                if not frontier:
                    break
            return Provenance(
                root_id=root_id,
                nodes=tuple(sorted(nodes.values(), key=lambda n: n.id)),
                edges=tuple(sorted(edges.values(), key=lambda e: (e.source, e.type, e.target))),
            )

        return await self._graph.read(work)


async def _expand(
    tx: AsyncManagedTransaction,
    frontier: Sequence[str],
    direction: Direction,
    scope: list[str] | None,
    nodes: dict[str, ProvenanceNode],
    edges: dict[tuple[str, str, str], Edge],
) -> list[str]:
    """Follow one hop from ``frontier`` (element ids); record nodes and edges.

    Returns the element ids of the nodes new to the walk: each node is
    expanded once however many paths lead to it.
    """
    records = await fetch(tx, STEP[direction], {"frontier": list(frontier), "scope": scope})
    new: list[str] = []
    for near, kind, far, element_id, labels, props in records[0]["rows"] if records else []:
        source, target = (near, far) if direction is Direction.DOWN else (far, near)
        edge = Edge(source=source, type=EdgeType(kind), target=target)
        edges[(edge.source, edge.type.value, edge.target)] = edge
        if far not in nodes:
            nodes[far] = node_from(labels, props)
            # Messages are the ground: nothing lies below them, so a DOWN
            # walk spends no query looking (a whole level at depth 4).
            if direction is Direction.UP or "Message" not in labels:
                new.append(element_id)
    return new
