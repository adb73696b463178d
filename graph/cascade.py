"""Deletion that follows provenance: read what derives from a node, then delete a planned set.

The walk goes UP against DERIVED_FROM and SUMMARIZES, one level per query,
inside one transaction, and for every node it reaches reads the ids of all of
that node's sources: the plan (:mod:`hippograph.cascade`) needs them to tell a
node derived only from the deleted set from one that also has other sources.
Every node reached passes the tenant predicate, so a key never sees, and never
deletes, another user's derivations. The delete reads the closure again in its
own transaction and refuses (``Conflict``) when the plan has changed since the
report, so it can never remove a set nobody was shown.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import LiteralString

from neo4j import AsyncManagedTransaction

from graph.cypher import NODE_PROPS_N, VISIBLE_N, cypher, provenance_write
from graph.driver import GraphDriver, fetch
from graph.entities import mentioned_by, prune
from graph.records import (
    MEMORY_MAP,
    MEMUNIT_MAP,
    MESSAGE_MAP,
    SESSION_MAP,
    memory_from,
    memunit_from,
    message_from,
    node_from,
    session_from,
)
from hippograph.cascade import (
    DeletionReport,
    DerivationClosure,
    deletion_report,
    label_of,
    root_label,
    shared_with_others,
    too_large,
)
from hippograph.errors import Conflict, NotFound
from hippograph.ids import IdKind, kind_of
from hippograph.models import ProvenanceNode, Session

# A deleted MemUnit's messages stay (they are its sources, not derived from
# it), marked so that memorize, which takes the messages no unit derives
# from, does not make the same unit of them again (graph/ingest.py).
SET_ASIDE = cypher(
    "cascade.SET_ASIDE",
    "MATCH (:MemUnit {id: $id})-[:DERIVED_FROM]->(m:Message) SET m.unit_deleted = true "
    "RETURN count(m) AS marked",
)


def _root(label: LiteralString, name: str, props: LiteralString) -> LiteralString:
    """The visible ``label`` node of ``$id``, as ``props`` maps it."""
    return cypher(
        "cascade.ROOT_" + name,
        "MATCH (n:" + label + " {id: $id}) WHERE " + VISIBLE_N + " RETURN n " + props + " AS props",
    )


ROOT_MESSAGE = _root("Message", "MESSAGE", MESSAGE_MAP)
ROOT_MEMUNIT = _root("MemUnit", "MEMUNIT", MEMUNIT_MAP)
ROOT_SESSION = _root("Session", "SESSION", SESSION_MAP)
ROOT_MEMORIES = cypher(
    "cascade.ROOT_MEMORIES",
    "UNWIND $ids AS id MATCH (n:Memory {id: id}) WHERE " + VISIBLE_N + " "
    "RETURN n " + MEMORY_MAP + " AS props",
)
# Callers ask for one more than their limit, so a session too large is recognised.
SESSION_MESSAGES = cypher(
    "cascade.SESSION_MESSAGES",
    "MATCH (:Session {id: $id})-[:HAS_MESSAGE]->(n:Message) WHERE " + VISIBLE_N + " "
    "RETURN n " + MESSAGE_MAP + " AS props LIMIT $limit",
)

# What derives from the frontier, with every source of each derived node (all
# of them, visible or not: a source the key cannot see is still a source that
# this deletion leaves in place). One query per label of the frontier, so each
# lookup by id uses that label's unique index.
_DERIVED: LiteralString = (
    "<-[:DERIVED_FROM|SUMMARIZES]-(n) WHERE " + VISIBLE_N + " "
    "WITH DISTINCT n LIMIT $limit "
    "MATCH (n)-[:DERIVED_FROM|SUMMARIZES]->(s) "
    "WITH n, collect(DISTINCT s.id) AS sources "
    "RETURN n.id AS id, labels(n) AS labels, " + NODE_PROPS_N + " AS props, sources"
)
# The labels a walk goes up from, and the names of their queries.
_FRONTIER: tuple[tuple[IdKind, LiteralString, str], ...] = (
    (IdKind.MESSAGE, "Message", "MESSAGES"),
    (IdKind.MEMUNIT, "MemUnit", "MEMUNITS"),
    (IdKind.MEMORY, "Memory", "MEMORIES"),
)
UP = {
    kind: cypher(
        "cascade.UP_FROM_" + name,
        "UNWIND $frontier AS fid MATCH (:" + label + " {id: fid})" + _DERIVED,
    )
    for kind, label, name in _FRONTIER
}
# The same for a deletion: each node of the frontier is changed first
# (graph/cypher.py's provenance_write), so that no derivation from it can
# commit unseen between this read and the delete.
UP_CLAIMED = {
    kind: cypher(
        "cascade.UP_FROM_" + name + "_CLAIMED",
        "UNWIND $frontier AS fid MATCH (f:"
        + label
        + " {id: fid}) "
        + provenance_write("f")
        + "WITH f MATCH (f)"
        + _DERIVED,
    )
    for kind, label, name in _FRONTIER
}
# A session's deletion changes it before it reads its messages: a message
# appended meanwhile changes it too (its ``last_seq``), so it is either read
# here or refused.
CLAIM_SESSION = cypher(
    "cascade.CLAIM_SESSION",
    "MATCH (n:Session {id: $id}) " + provenance_write("n") + "RETURN count(n) AS claimed",
)

DELETE = {
    label: cypher(
        "cascade.DELETE_" + plural,
        "UNWIND $ids AS id MATCH (n:"
        + label
        + " {id: id}) DETACH DELETE n RETURN count(*) AS deleted",
    )
    for label, plural in (
        ("Memory", "MEMORIES"),
        ("MemUnit", "MEMUNITS"),
        ("Message", "MESSAGES"),
        ("Session", "SESSIONS"),
    )
}


class CascadeGraph:
    """Reads derivation closures and deletes planned sets."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def closure(
        self, root_id: str, scope: list[str] | None, limit: int
    ) -> DerivationClosure | None:
        """Everything derived from ``root_id``; None if the root is missing or not visible."""

        async def work(tx: AsyncManagedTransaction) -> DerivationClosure | None:
            return await _closure(tx, root_id, scope, limit)

        return await self._graph.read(work)

    async def delete(
        self, root_id: str, expected: Collection[str], scope: list[str] | None, limit: int
    ) -> None:
        """Delete the plan for ``root_id`` if it is still exactly ``expected``.

        ``NotFound`` if the root went away, ``Conflict`` if the plan changed
        (nodes derived since, or sources added or removed), ``InvalidInput``
        if it grew past ``limit``; nothing is deleted in any of these cases.
        """
        wanted = frozenset(expected)

        async def work(tx: AsyncManagedTransaction) -> None:
            closure = await _closure(tx, root_id, scope, limit, claim=True)
            if closure is None:
                raise NotFound(root_label(root_id), root_id)
            if not closure.complete:
                raise too_large(root_id, limit)
            report = deletion_report(root_id, closure)
            if report.deleted_ids != wanted:
                raise Conflict(
                    f"what derives from {root_id!r} changed since the report: "
                    "ask for a new report and confirm that one"
                )
            if kind_of(root_id) is IdKind.MEMUNIT:
                await fetch(tx, SET_ASIDE, {"id": root_id})
            await delete_planned(tx, report)

        await self._graph.write(work)


async def delete_planned(tx: AsyncManagedTransaction, report: DeletionReport) -> None:
    """Delete every node of ``report`` (edges with them); ``Conflict`` if one is gone."""
    by_label: dict[str, list[str]] = {}
    for node in (*report.deleted, *((report.session,) if report.session else ())):
        by_label.setdefault(label_of(node), []).append(node.id)
    mentioned: list[str] = []
    for label, ids in by_label.items():
        mentioned += await mentioned_by(tx, label, ids)
        rows = await fetch(tx, DELETE[label], {"ids": ids})
        if int(rows[0]["deleted"]) != len(ids):
            raise Conflict(f"some of the {label} nodes to delete are gone already")
    # Entities only these nodes mentioned go with them.
    await prune(tx, mentioned)


async def memory_closure(
    tx: AsyncManagedTransaction,
    ids: Sequence[str],
    scope: list[str] | None,
    limit: int,
    *,
    claim: bool = False,
) -> DerivationClosure:
    """Everything derived from the visible memories among ``ids`` (the roots);
    ``claim``: for a deletion in this transaction (see :data:`UP_CLAIMED`)."""
    rows = await fetch(tx, ROOT_MEMORIES, {"ids": list(ids), "scope": scope})
    roots = [memory_from(r["props"]) for r in rows]
    return await _walk_up(tx, roots, None, scope, limit, claim=claim)


async def _closure(
    tx: AsyncManagedTransaction,
    root_id: str,
    scope: list[str] | None,
    limit: int,
    *,
    claim: bool = False,
) -> DerivationClosure | None:
    """The closure of a visible root; ``Conflict`` if it reaches other users' data.

    The walk is made without the tenant filter, so that what derives from the
    root for another user (a group MemUnit's other participant) is seen, and
    refused, rather than silently stripped of its provenance.
    """
    roots, session = await _roots(tx, root_id, scope, limit, claim=claim)
    if not roots and session is None:
        return None
    closure = await _walk_up(tx, roots, session, None, limit, claim=claim)
    if scope is not None and closure.complete:
        refusal = shared_with_others(root_id, closure, scope)
        if refusal is not None:
            raise refusal
    return closure


async def _walk_up(
    tx: AsyncManagedTransaction,
    roots: Sequence[ProvenanceNode],
    session: Session | None,
    scope: list[str] | None,
    limit: int,
    *,
    claim: bool,
) -> DerivationClosure:
    if len(roots) > limit:
        return DerivationClosure(roots=(), derived={}, sources={}, session=session, complete=False)
    derived: dict[str, ProvenanceNode] = {}
    sources: dict[str, tuple[str, ...]] = {}
    seen = {r.id for r in roots}
    frontier = sorted(seen)
    while frontier:
        fresh: list[str] = []
        for kind, ids in _by_kind(frontier).items():
            # Rows are distinct nodes of the closure: more than ``limit`` of
            # them and the closure is too large, whichever were seen before.
            up = (UP_CLAIMED if claim else UP)[kind]
            rows = await fetch(tx, up, {"frontier": ids, "scope": scope, "limit": limit + 1})
            if len(rows) > limit:
                return DerivationClosure(tuple(roots), derived, sources, session, complete=False)
            for row in rows:
                node_id = row["id"]
                if node_id in seen:
                    continue
                seen.add(node_id)
                derived[node_id] = node_from(row["labels"], row["props"])
                sources[node_id] = tuple(sorted(row["sources"]))
                fresh.append(node_id)
        if len(seen) > limit:
            return DerivationClosure(tuple(roots), derived, sources, session, complete=False)
        frontier = sorted(fresh)
    return DerivationClosure(tuple(roots), derived, sources, session)


async def _roots(
    tx: AsyncManagedTransaction, root_id: str, scope: list[str] | None, limit: int, *, claim: bool
) -> tuple[list[ProvenanceNode], Session | None]:
    params = {"id": root_id, "scope": scope}
    kind = kind_of(root_id)
    if kind is IdKind.MESSAGE:
        return [message_from(r["props"]) for r in await fetch(tx, ROOT_MESSAGE, params)], None
    if kind is IdKind.MEMUNIT:
        return [memunit_from(r["props"]) for r in await fetch(tx, ROOT_MEMUNIT, params)], None
    if kind is IdKind.SESSION:
        if claim:
            await fetch(tx, CLAIM_SESSION, params)
        found = await fetch(tx, ROOT_SESSION, params)
        if not found:
            return [], None
        rows = await fetch(tx, SESSION_MESSAGES, params | {"limit": limit + 1})
        return [message_from(r["props"]) for r in rows], session_from(found[0]["props"])
    return [], None


def _by_kind(ids: Sequence[str]) -> dict[IdKind, list[str]]:
    grouped: dict[IdKind, list[str]] = {}
    for node_id in ids:
        kind = kind_of(node_id)
        if kind is not None and kind in UP:
            grouped.setdefault(kind, []).append(node_id)
    return grouped
