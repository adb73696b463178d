"""Deletion that follows provenance: what goes when a message, MemUnit or session goes.

A node is derived *only* from a deleted set when every one of its sources
(DERIVED_FROM and SUMMARIZES targets) is in the set. Deleting the roots thus
deletes, to a fixpoint, everything derived only from them; a node with at least
one source outside the set is kept and reported as losing a source. SUPERSEDES
is a correction, not a derivation, so it is never followed.

This module is pure: the graph reads the closure, this plans, the graph deletes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from hippograph.errors import Conflict, InvalidInput
from hippograph.ids import IdKind, kind_of
from hippograph.models import Memory, MemUnit, Message, ProvenanceNode, Session

# Nodes a single deletion may reach; beyond it the caller must delete in parts,
# so that one request can never hold a transaction over an unbounded subgraph.
MAX_CASCADE_NODES = 10_000

# What deletion can start from, by id prefix, as error messages name it.
ROOT_KINDS: dict[IdKind, str] = {
    IdKind.MESSAGE: "message",
    IdKind.MEMUNIT: "MemUnit",
    IdKind.SESSION: "session",
}


@dataclass(frozen=True, slots=True)
class DerivationClosure:
    """What a walk up from the roots found.

    ``roots`` are the nodes deletion starts from (one message, one MemUnit, or
    every message of ``session``); ``derived`` is every node reachable from
    them against provenance edges, and ``sources`` the ids of *all* sources of
    each derived node, including those outside the closure. ``complete`` is
    False when the walk stopped at its node limit.
    """

    roots: tuple[ProvenanceNode, ...]
    derived: Mapping[str, ProvenanceNode]
    sources: Mapping[str, tuple[str, ...]]
    session: Session | None = None
    complete: bool = True


@dataclass(frozen=True, slots=True)
class DeletionPlan:
    """Ids to delete (roots included) and ids kept although they lose a source."""

    deleted: tuple[str, ...]
    kept: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DeletionReport:
    """What deleting ``root_id`` removes (or removed, when ``applied``) and what it keeps."""

    root_id: str
    deleted: tuple[ProvenanceNode, ...]
    kept: tuple[ProvenanceNode, ...]
    session: Session | None = None
    applied: bool = False
    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def deleted_ids(self) -> frozenset[str]:
        """Every id this deletion removes, the session's included."""
        ids = {n.id for n in self.deleted}
        if self.session is not None:
            ids.add(self.session.id)
        return frozenset(ids)


def plan_deletion(roots: Iterable[str], sources: Mapping[str, Collection[str]]) -> DeletionPlan:
    """The fixpoint: the roots, then every node all of whose sources are deleted.

    Linear in nodes and edges: each node counts its sources not yet deleted,
    and a node joins the set when its count reaches zero. A node without
    sources is never derived from anything, so it is never deleted (unless it
    is a root). Nodes in a cycle of derivations wait on each other forever and
    are kept, which errs on the side of keeping data.
    """
    root_set = set(roots)
    waiting: dict[str, int] = {}
    dependents: dict[str, list[str]] = {}
    for node_id in sorted(sources):
        if node_id in root_set:
            continue
        unique = set(sources[node_id])
        waiting[node_id] = len(unique)
        for source in sorted(unique):
            dependents.setdefault(source, []).append(node_id)
    deleted = set(root_set)
    queue = deque(sorted(root_set))
    while queue:
        gone = queue.popleft()
        for node_id in dependents.get(gone, ()):
            waiting[node_id] -= 1
            if waiting[node_id] == 0 and node_id not in deleted:
                deleted.add(node_id)
                queue.append(node_id)
    kept = {
        node_id
        for node_id in waiting
        if node_id not in deleted and not deleted.isdisjoint(sources[node_id])
    }
    return DeletionPlan(deleted=tuple(sorted(deleted)), kept=tuple(sorted(kept)))


def label_of(node: ProvenanceNode | Session) -> str:
    """The graph label of a node record."""
    if isinstance(node, Memory):
        return "Memory"
    if isinstance(node, MemUnit):
        return "MemUnit"
    if isinstance(node, Message):
        return "Message"
    return "Session"


def deletion_report(
    root_id: str, closure: DerivationClosure, gone: Collection[str] = ()
) -> DeletionReport:
    """The plan for ``closure`` with its node records, counted by label.

    ``gone``: nodes to count as deleted already (a dry run's earlier pages):
    a node derived from them waits only on its other sources.
    """
    nodes: dict[str, ProvenanceNode] = {n.id: n for n in closure.roots}
    nodes.update(closure.derived)
    sources = closure.sources
    if gone:
        sources = {n: tuple(s for s in of if s not in gone) for n, of in sources.items()}
    plan = plan_deletion([r.id for r in closure.roots], sources)
    deleted = tuple(nodes[i] for i in plan.deleted)
    counts = {"Session": 0, "Message": 0, "MemUnit": 0, "Memory": 0}
    for node in (*deleted, *((closure.session,) if closure.session else ())):
        counts[label_of(node)] += 1
    return DeletionReport(
        root_id=root_id,
        deleted=deleted,
        kept=tuple(nodes[i] for i in plan.kept),
        session=closure.session,
        counts=counts,
    )


def owners(node: ProvenanceNode | Session) -> tuple[str, ...]:
    """The users a node belongs to: one, or every participant of a group MemUnit."""
    return node.user_ids if isinstance(node, MemUnit) else (node.user_id,)


def shared_with_others(
    root_id: str, closure: DerivationClosure, scope: Collection[str]
) -> Conflict | None:
    """The refusal of a deletion that reaches another user's data, or None.

    ``closure`` is the walk made without a tenant filter. A key deletes only
    what lies wholly within its users: a group MemUnit, or anything derived
    from the root that belongs to a user outside ``scope``, stops the
    deletion (dry run and real run alike). The refusal names the shared nodes
    the caller can see and only says that there are others, which it may not see.
    """
    nodes = [*closure.roots, *closure.derived.values()]
    foreign = [n for n in nodes if not set(owners(n)) <= set(scope)]
    if not foreign:
        return None
    visible = sorted(n.id for n in foreign if set(owners(n)) & set(scope))
    hidden = len(foreign) - len(visible)
    named = f"{', '.join(visible[:5])}{' …' if len(visible) > 5 else ''}"
    parts = [f"shared with another user: {named}"] if visible else []
    if hidden:
        # that others do, not how many: a count would tell a key about
        # data it may not see
        parts.append("other users' data derives from it")
    return Conflict(
        f"deleting {root_id} would destroy data of "
        f"other users ({'; '.join(parts)}); a key deletes only what is wholly its users', "
        "so nothing was deleted (an admin key may delete it for everyone)"
    )


def root_label(root_id: str) -> str:
    """What a root id names (``message``, ``MemUnit``, ``session``), for error messages."""
    kind = kind_of(root_id)
    return ROOT_KINDS[kind] if kind is not None and kind in ROOT_KINDS else "node"


def too_large(root_id: str, limit: int) -> InvalidInput:
    """The refusal of a deletion that reaches more than ``limit`` nodes."""
    return InvalidInput(
        f"more than {limit} nodes derive from {root_id!r}, too many to delete at once: "
        "delete its parts (single messages or MemUnits) first",
        "id",
    )
