"""What a reflection's facts owe it: their ``consolidated`` mark and its SUMMARIZES edges.

A reflection marks the facts it summarises ``consolidated``: they leave the
default listings and searches (the reflection stands for them) and are not
reflected on again. So a reflection that goes must hand its facts back, and
one that is corrected must keep them:

* deleting a reflection (soft or hard, by any path) clears ``consolidated``
  on each of its facts that no other current reflection summarises, before
  the edges go with a hard-deleted node;
* a new version of a reflection (a corrected text) summarises what the old
  one did, so its facts keep a current reflection and their ``summarizedBy``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from neo4j import AsyncManagedTransaction

from graph.cypher import cypher, provenance_write
from graph.driver import fetch

RELEASE_SUMMARIZED = cypher(
    "consolidation.RELEASE_SUMMARIZED",
    "UNWIND $ids AS rid MATCH (:Memory {id: rid})-[:SUMMARIZES]->(f:Memory) "
    "WITH DISTINCT f "
    "OPTIONAL MATCH (o:Memory)-[:SUMMARIZES]->(f) "
    "WHERE NOT o.id IN $ids AND o.deleted_at IS NULL "
    "AND (o.valid_to IS NULL OR o.valid_to > $now) "
    "WITH f, count(o) AS others WHERE others = 0 "
    "SET f.consolidated = false RETURN count(f) AS released",
)
CARRY_SUMMARIZES = cypher(
    "consolidation.CARRY_SUMMARIZES",
    "MATCH (:Memory {id: $old_id})-[:SUMMARIZES]->(f:Memory) "
    "MATCH (m:Memory {id: $new_id}) "
    "CREATE (m)-[:SUMMARIZES]->(f) " + provenance_write("f") + "RETURN count(f) AS carried",
)


async def release_summarized(
    tx: AsyncManagedTransaction, reflection_ids: Sequence[str], now: datetime
) -> int:
    """Clear ``consolidated`` on the facts only the memories ``reflection_ids`` (about to
    be deleted) summarise among current reflections; how many were released. Memories
    that are not reflections summarise nothing, and cost a lookup each."""
    if not reflection_ids:
        return 0
    rows = await fetch(tx, RELEASE_SUMMARIZED, {"ids": list(reflection_ids), "now": now})
    return int(rows[0]["released"]) if rows else 0


async def carry_summaries(tx: AsyncManagedTransaction, old_id: str, new_id: str) -> None:
    """Give the new version ``new_id`` of a memory the SUMMARIZES edges of ``old_id``."""
    await fetch(tx, CARRY_SUMMARIZES, {"old_id": old_id, "new_id": new_id})
