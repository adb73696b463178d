"""Whole-database operations: emptying a database (tests, ``import --replace``)."""

from __future__ import annotations

from neo4j import AsyncManagedTransaction

from graph.cypher import cypher
from graph.driver import GraphDriver, fetch

DELETE_BATCH = cypher(
    "maintenance.DELETE_BATCH",
    "MATCH (n) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted",
)


async def clear_database(graph: GraphDriver, batch: int = 5000) -> int:
    """Delete every node and edge, in batches so no transaction grows unbounded."""
    total = 0
    while True:

        async def work(tx: AsyncManagedTransaction) -> int:
            rows = await fetch(tx, DELETE_BATCH, {"batch": batch})
            return int(rows[0]["deleted"]) if rows else 0

        deleted = await graph.write(work)
        total += deleted
        if deleted < batch:
            return total
