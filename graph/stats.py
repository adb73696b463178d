"""Counts for operators (``/metrics``): memories by kind and level, jobs by kind and status."""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import AsyncManagedTransaction

from graph.cypher import cypher
from graph.driver import GraphDriver, fetch

MEMORY_COUNTS = cypher(
    "stats.MEMORY_COUNTS",
    "MATCH (m:Memory) "
    "RETURN m.kind AS kind, coalesce(m.level, 'full') AS level, "
    "m.deleted_at IS NOT NULL AS deleted, count(*) AS n",
)
NODE_COUNTS = cypher(
    "stats.NODE_COUNTS",
    "MATCH (n) RETURN labels(n)[0] AS label, count(*) AS n",
)
EDGE_COUNTS = cypher(
    "stats.EDGE_COUNTS",
    "MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS n",
)
JOB_COUNTS = cypher(
    "stats.JOB_COUNTS",
    "MATCH (j:Job) RETURN j.kind AS kind, j.status AS status, count(*) AS n",
)


@dataclass(frozen=True, slots=True)
class GraphCounts:
    """What the graph holds right now, grouped by labels an operator filters on."""

    memories: dict[tuple[str, str, bool], int]
    jobs: dict[tuple[str, str], int]


class StatsGraph:
    """Aggregate counts over the whole database (every tenant)."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def counts(self) -> GraphCounts:
        """Memories by (kind, level, deleted) and jobs by (kind, status), in one read."""

        async def work(tx: AsyncManagedTransaction) -> GraphCounts:
            memories = {
                (str(r["kind"]), str(r["level"]), bool(r["deleted"])): int(r["n"])
                for r in await fetch(tx, MEMORY_COUNTS)
            }
            jobs = {
                (str(r["kind"]), str(r["status"])): int(r["n"]) for r in await fetch(tx, JOB_COUNTS)
            }
            return GraphCounts(memories, jobs)

        return await self._graph.read(work)

    async def shape(self) -> tuple[dict[str, int], dict[str, int]]:
        """Nodes by label and edges by type: what a write would change (tests, exports)."""

        async def work(tx: AsyncManagedTransaction) -> tuple[dict[str, int], dict[str, int]]:
            nodes = {str(r["label"]): int(r["n"]) for r in await fetch(tx, NODE_COUNTS)}
            edges = {str(r["type"]): int(r["n"]) for r in await fetch(tx, EDGE_COUNTS)}
            return nodes, edges

        return await self._graph.read(work)
