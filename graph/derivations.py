"""A memory's DERIVED_FROM edges to its sources (messages, MemUnits, memories).

Each link changes its source (graph/cypher.py: provenance_write), so that a
deletion along provenance racing it either sees the new memory or leaves it
without a source to link to; and each counts the sources it found, so that
one gone since the service's check rolls the whole write back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import LiteralString

from neo4j import AsyncManagedTransaction

from graph.cypher import cypher, provenance_write
from graph.driver import fetch
from graph.links import require_linked
from hippograph.models import IndexedText, Memory, Sources

# Every link ends alike: the edge (kept if there), the source changed, the
# sources found counted.
_LINK: LiteralString = (
    "MERGE (m)-[:DERIVED_FROM]->(x) " + provenance_write("x") + "RETURN count(x) AS linked"
)
LINK_MESSAGES = cypher(
    "derivations.LINK_MESSAGES",
    "MATCH (m:Memory {id: $id}) UNWIND $sources AS sid MATCH (x:Message {id: sid}) " + _LINK,
)
LINK_MEMUNITS = cypher(
    "derivations.LINK_MEMUNITS",
    "MATCH (m:Memory {id: $id}) UNWIND $sources AS sid MATCH (x:MemUnit {id: sid}) " + _LINK,
)
LINK_MEMORIES = cypher(
    "derivations.LINK_MEMORIES",
    "MATCH (m:Memory {id: $id}) UNWIND $sources AS sid MATCH (x:Memory {id: sid}) "
    "WHERE x.deleted_at IS NULL " + _LINK,
)
LINK_MANY_MESSAGES = cypher(
    "derivations.LINK_MANY_MESSAGES",
    "UNWIND $links AS link MATCH (m:Memory {id: link.memory}) MATCH (x:Message {id: link.source}) "
    + _LINK,
)
LINK_MANY_MEMUNITS = cypher(
    "derivations.LINK_MANY_MEMUNITS",
    "UNWIND $links AS link MATCH (m:Memory {id: link.memory}) MATCH (x:MemUnit {id: link.source}) "
    + _LINK,
)
LINK_MANY_MEMORIES = cypher(
    "derivations.LINK_MANY_MEMORIES",
    "UNWIND $links AS link MATCH (m:Memory {id: link.memory}) MATCH (x:Memory {id: link.source}) "
    "WHERE x.deleted_at IS NULL " + _LINK,
)

_LINKS: tuple[tuple[str, LiteralString, LiteralString], ...] = (
    ("message_ids", LINK_MESSAGES, LINK_MANY_MESSAGES),
    ("memunit_ids", LINK_MEMUNITS, LINK_MANY_MEMUNITS),
    ("memory_ids", LINK_MEMORIES, LINK_MANY_MEMORIES),
)


async def link_sources(tx: AsyncManagedTransaction, memory_id: str, sources: Sources) -> None:
    """A DERIVED_FROM edge from memory ``memory_id`` to each of ``sources``; all or nothing."""
    for attribute, query, _ in _LINKS:
        ids = list(dict.fromkeys(getattr(sources, attribute)))
        if not ids:
            continue
        rows = await fetch(tx, query, {"id": memory_id, "sources": ids})
        # A source gone since the service's check rolls the whole memory back.
        require_linked(int(rows[0]["linked"]), len(ids), "source", ", ".join(ids))


async def link_many_sources(
    tx: AsyncManagedTransaction, items: Sequence[tuple[Memory, IndexedText, Sources]]
) -> None:
    """A DERIVED_FROM edge from each memory of ``items`` to each of its sources
    (MERGE: an edge already there is kept, not doubled); all or nothing."""
    for attribute, _, many in _LINKS:
        links = [
            {"memory": m.id, "source": source}
            for m, _, sources in items
            for source in dict.fromkeys(getattr(sources, attribute))
        ]
        if not links:
            continue
        linked = await fetch(tx, many, {"links": links})
        detail = f"one of {len(links)} {attribute}"
        require_linked(int(linked[0]["linked"]), len(links), "source", detail)
