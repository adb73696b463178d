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


def locked(node: LiteralString, *carried: LiteralString) -> LiteralString:
    """``SET n.kind = n.kind WITH n``: take ``node``'s write lock before what follows tests it.

    Neo4j reads committed data without a lock, so two writers that both test
    a node (a job still queued, a memory still current, a fact still free)
    before either commits would both pass and both write; a SET that reads the
    property it sets takes the write lock before it reads, and the test after
    it then reads what the writer before committed. ArcadeDB sees no change in
    a value set unchanged and relies instead on refusing the second of two
    writers of one record; where the two would write different records, the
    caller counts itself on the shared node (:func:`counted`).
    Every node it is used on (Job, Memory, Entity) has a ``kind``, and only a
    node deleted while this write waited for its lock has none: Neo4j then
    lets the SET through without an error and reads every property as null,
    so a test such as ``m.deleted_at IS NULL`` would pass, and a count would
    say the node was written. Such a node is dropped here. ``carried``: the
    other variables the query goes on with (an UNWIND's row).
    """
    kept: LiteralString = node
    for name in carried:
        kept = kept + ", " + name
    return (
        "SET " + node + ".kind = " + node + ".kind "
        "WITH " + kept + " WHERE " + node + ".kind IS NOT NULL WITH " + kept + " "
    )


# The properties that count writes so that racing writers change one shared
# node (locked's docstring): concurrency devices, not data. A dump leaves them
# out (graph/dump.py), so a graph loaded from one exports as it came.
WRITE_COUNTERS = frozenset(
    {
        "provenance_writes",
        "session_writes",
        "memory_writes",
        "memorize_writes",
        "profile_writes",
        "user_writes",
    }
)


def counted(node: LiteralString, counter: LiteralString) -> LiteralString:
    """``SET n.<counter> = n.<counter> + 1``: a real change to ``node``, which both
    servers see (unlike :func:`locked`'s), by each of two racing writers that would
    otherwise change different records. ``counter`` is one of
    :data:`WRITE_COUNTERS`, so that a dump leaves it out."""
    if counter not in WRITE_COUNTERS:
        raise ValueError(f"{counter!r} is not one of the write counters a dump leaves out")
    return "SET " + node + "." + counter + " = coalesce(" + node + "." + counter + ", 0) + 1 "


def provenance_write(node: LiteralString) -> LiteralString:
    """``SET n.provenance_writes = n.provenance_writes + 1``: a real change to ``node``
    by every write that derives a node from it, and by a deletion along provenance
    before it reads what derives from it.

    A deletion that read no derivation of a message, then deleted it, would leave a
    memory derived from it meanwhile (by another process: a worker's memorize)
    without its source, the words the user asked to forget still in it. With both
    writers changing the source, Neo4j queues the later on the node's write lock,
    and ArcadeDB refuses the later commit and retries it: the deletion then reads
    the new derivation, or the derivation finds its source gone.
    """
    return counted(node, "provenance_writes")
