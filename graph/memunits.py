"""MemUnits: the smallest units extracted from runs of messages."""

from __future__ import annotations

from collections.abc import Sequence

from neo4j import AsyncManagedTransaction

from graph.cypher import VISIBLE_N, cypher, provenance_write
from graph.driver import GraphDriver, fetch
from graph.records import MEMUNIT_MAP, float32, memunit_from, memunit_props
from hippograph.models import IndexedText, MemUnit
from hippograph.text import user_token

ADD_MEMUNIT = cypher(
    "memunits.ADD_MEMUNIT",
    "MERGE (n:MemUnit {id: $props.id}) "
    "ON CREATE SET n += $props, n.embedding = $embedding, n.search_text = $search_text, "
    "n.user_key = $user_key "
    "WITH n "
    "UNWIND $message_ids AS mid "
    "MATCH (m:Message {id: mid}) "
    "MERGE (n)-[:DERIVED_FROM]->(m) " + provenance_write("m") + "RETURN count(m) AS linked",
)
GET_MEMUNITS = cypher(
    "memunits.GET_MEMUNITS",
    "UNWIND $ids AS id MATCH (n:MemUnit {id: id}) WHERE " + VISIBLE_N + " "
    "RETURN n " + MEMUNIT_MAP + " AS props",
)


def memunit_user_key(user_ids: Sequence[str]) -> str:
    """The ``user_key`` of a node shared by ``user_ids``: one token per user."""
    return " ".join(user_token(u) for u in user_ids)


class MemUnitGraph:
    """MemUnits in the graph."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def add(self, unit: MemUnit, indexed: IndexedText, message_ids: Sequence[str]) -> int:
        """Store ``unit`` with DERIVED_FROM edges to its messages; returns edges linked."""

        async def work(tx: AsyncManagedTransaction) -> int:
            rows = await fetch(
                tx,
                ADD_MEMUNIT,
                {
                    "props": memunit_props(unit),
                    "embedding": float32(indexed.embedding),
                    "search_text": indexed.search_text,
                    "user_key": memunit_user_key(unit.user_ids),
                    "message_ids": list(message_ids),
                },
            )
            return int(rows[0]["linked"]) if rows else 0

        return await self._graph.write(work, merge_only=True)

    async def get_memunits(self, ids: Sequence[str], scope: list[str] | None) -> dict[str, MemUnit]:
        """The MemUnits among ``ids`` that exist and are visible, by id."""
        rows = await self._graph.query(GET_MEMUNITS, {"ids": list(ids), "scope": scope})
        return {row["props"]["id"]: memunit_from(row["props"]) for row in rows}
