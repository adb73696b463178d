"""Paths through a provenance subgraph: how the root connects to each thing it reached.

A provenance walk returns a subgraph (nodes and edges); a client that wants to
show *why* a memory holds, say, message m_7 needs the chains root → … → m_7.
The number of such chains grows exponentially with depth on diamond-shaped
graphs (a reflection over memories over shared MemUnits), so enumeration is
capped and made cheap before it starts:

1. edges that would close a cycle are dropped (provenance should be a DAG, but
   data written by hand might not be, and simple paths on a cyclic graph can
   dead-end, which would break the bound below);
2. nodes that cannot reach any target are pruned, so every partial path
   extends to at least one complete path;
3. a breadth-first enumeration keeps ``completed + queued ≤ limit``: since each
   queued partial path is worth at least one distinct complete path, the work
   is proportional to ``limit × path length`` however many paths exist.

Paths come out shortest first, then in order of their hops' node ids (then
edge types), so the same subgraph always yields the same list.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

from hippograph.models import Direction, Edge, EdgeType, Message, Provenance

MAX_PATHS = 1000


@dataclass(frozen=True, slots=True)
class ProvenancePath:
    """One chain of hops from the root: ``edge_types[i]`` joins ``node_ids[i]`` and ``[i + 1]``."""

    node_ids: tuple[str, ...]
    edge_types: tuple[EdgeType, ...]

    @property
    def target(self) -> str:
        """Where the path ends."""
        return self.node_ids[-1]


@dataclass(frozen=True, slots=True)
class PathSet:
    """The paths found, and whether the cap cut some off."""

    paths: tuple[ProvenancePath, ...]
    truncated: bool


@dataclass(frozen=True, slots=True, order=True)
class _Hop:
    node: str
    type: EdgeType


def provenance_paths(
    provenance: Provenance, direction: Direction, limit: int = MAX_PATHS
) -> PathSet:
    """Every path from the root of a walk to what it reached, at most ``limit`` of them.

    DOWN: to each raw message reached. UP: to each leaf of the walk, a node
    from which nothing further was derived within the walk's depth.
    """
    upward = direction is Direction.UP
    if upward:
        derived_from = {e.target for e in provenance.edges}
        targets = {n.id for n in provenance.nodes if n.id not in derived_from}
    else:
        targets = {n.id for n in provenance.nodes if isinstance(n, Message)}
    known = {n.id for n in provenance.nodes}
    # an edge to a node the walk did not return (not visible) is not a hop
    edges = [e for e in provenance.edges if e.source in known and e.target in known]
    return find_paths(provenance.root_id, edges, targets, upward=upward, limit=limit)


def find_paths(
    root_id: str,
    edges: Iterable[Edge],
    targets: Collection[str],
    *,
    upward: bool = False,
    limit: int = MAX_PATHS,
) -> PathSet:
    """Paths from ``root_id`` to any of ``targets`` along ``edges``, at most ``limit``.

    Edges point from the derived node to its source; a walk goes along them
    (``upward=False``) or against them (``upward=True``). A path may pass
    through a target and go on to another one.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    hops = _hops(edges, upward)
    kept, finished = _acyclic(root_id, hops)
    useful = _reaching(targets, kept, finished)
    if root_id not in useful:
        return PathSet(paths=(), truncated=False)
    pruned = {node: [h for h in out if h.node in useful] for node, out in kept.items()}
    return _enumerate(root_id, pruned, targets, limit)


def _hops(edges: Iterable[Edge], upward: bool) -> dict[str, list[_Hop]]:
    """Outgoing hops per node, deduplicated and sorted (the source of the output order)."""
    out: dict[str, set[_Hop]] = {}
    for edge in edges:
        start, end = (edge.target, edge.source) if upward else (edge.source, edge.target)
        out.setdefault(start, set()).add(_Hop(end, edge.type))
    return {node: sorted(found) for node, found in out.items()}


def _acyclic(root_id: str, hops: dict[str, list[_Hop]]) -> tuple[dict[str, list[_Hop]], list[str]]:
    """The hops reachable from the root minus back edges, and the nodes in post-order.

    Iterative depth-first search (a recursive one would be bounded by Python's
    stack, not by the data); post-order puts every node after all it reaches.
    """
    on_stack: set[str] = {root_id}
    kept: dict[str, list[_Hop]] = {root_id: []}
    finished: list[str] = []
    stack: list[tuple[str, Iterator[_Hop]]] = [(root_id, iter(hops.get(root_id, ())))]
    while stack:
        node, pending = stack[-1]
        for hop in pending:
            if hop.node in on_stack:
                continue  # a back edge: following it would close a cycle
            kept[node].append(hop)
            if hop.node not in kept:
                on_stack.add(hop.node)
                kept[hop.node] = []
                stack.append((hop.node, iter(hops.get(hop.node, ()))))
                break
        else:
            on_stack.discard(node)
            finished.append(node)
            stack.pop()
    return kept, finished


def _reaching(
    targets: Collection[str], kept: dict[str, list[_Hop]], finished: list[str]
) -> set[str]:
    """The nodes from which some target can be reached (themselves included)."""
    useful: set[str] = set()
    for node in finished:
        if node in targets or any(h.node in useful for h in kept[node]):
            useful.add(node)
    return useful


def _enumerate(
    root_id: str, hops: dict[str, list[_Hop]], targets: Collection[str], limit: int
) -> PathSet:
    """Breadth-first over partial paths, never holding more than ``limit`` of them."""
    found: list[ProvenancePath] = []
    queue: deque[ProvenancePath] = deque([ProvenancePath(node_ids=(root_id,), edge_types=())])
    truncated = False
    while queue:
        path = queue.popleft()
        if path.target in targets:
            found.append(path)
        for hop in hops.get(path.target, ()):
            # every queued path completes at least once, so this bounds the output
            if len(found) + len(queue) >= limit:
                truncated = True
                break
            queue.append(
                ProvenancePath(
                    node_ids=(*path.node_ids, hop.node), edge_types=(*path.edge_types, hop.type)
                )
            )
    return PathSet(paths=tuple(found), truncated=truncated)
