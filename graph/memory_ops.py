"""An agent's batch of memory operations, applied in one transaction (all or nothing)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from neo4j import AsyncManagedTransaction

from graph.consolidation import release_summarized
from graph.cypher import cypher, locked
from graph.driver import GraphDriver, fetch
from graph.entities import mentioned_by, prune, write_mentions
from graph.memories import UPDATE_MEMORY, create_memories, memory_row, write_successor
from hippograph.errors import NotFound
from hippograph.models import MemoryOpsPlan

# Under the lock too: on Neo4j a boost that waited while a forget run deleted
# the memory counted it as boosted, and the batch said so.
BOOST_MEMORIES = cypher(
    "memory_ops.BOOST_MEMORIES",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) "
    + locked("m")
    + "WHERE m.deleted_at IS NULL AND (m.valid_to IS NULL OR m.valid_to > $now) "
    "SET m.importance = CASE WHEN m.importance + $boost > 1.0 THEN 1.0 "
    "ELSE m.importance + $boost END "
    "RETURN count(m) AS n",
)
SOFT_DELETE_MEMORIES = cypher(
    "memory_ops.SOFT_DELETE_MEMORIES",
    # under the lock (graph.cypher.locked): a batch racing another's delete of
    # the same memory must find it deleted, and roll back whole
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) " + locked("m") + "WHERE m.deleted_at IS NULL "
    "SET m.deleted_at = $now RETURN count(m) AS n",
)
HARD_DELETE_MEMORIES = cypher(
    "memory_ops.HARD_DELETE_MEMORIES",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) DETACH DELETE m RETURN count(*) AS n",
)


class MemoryOpsGraph:
    """Applies a planned batch of operations."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def apply(
        self, plan: MemoryOpsPlan, now: datetime, *, importances: Mapping[str, float] | None = None
    ) -> None:
        """Every operation of ``plan``, and ``importances`` (memory id -> importance, an
        UPDATE to the same text) set in place, or none of it: a memory that changed
        since it was checked (deleted, superseded, edited in place) rolls the whole batch back with
        ``NotFound``."""

        async def work(tx: AsyncManagedTransaction) -> None:
            await create_memories(tx, [memory_row(m, i) for m, i in plan.adds])
            for old, memory, indexed in plan.supersedes:
                if not await write_successor(tx, old, memory, indexed, now):
                    raise NotFound("memory", old.id)
            for memory_id, importance in (importances or {}).items():
                # updateMemory's own edit: it waits for a new version being
                # written and then finds this one superseded, so an importance
                # never lands on a version that is no longer current.
                changes = {"importance": importance}
                params = {"id": memory_id, "changes": changes, "now": now}
                if not await fetch(tx, UPDATE_MEMORY, params):
                    raise NotFound("memory", memory_id)
            await write_mentions(tx, plan.mentions)
            for query, ids, extra in (
                (BOOST_MEMORIES, plan.boosts, {"boost": plan.boost, "now": now}),
                (SOFT_DELETE_MEMORIES, plan.soft_deletes, {"now": now}),
                (HARD_DELETE_MEMORIES, plan.hard_deletes, {}),
            ):
                if not ids:
                    continue
                deleting = query is HARD_DELETE_MEMORIES
                if query is not BOOST_MEMORIES:
                    await release_summarized(tx, ids, now)
                mentioned = await mentioned_by(tx, "Memory", ids) if deleting else []
                counted = await fetch(tx, query, {"ids": list(ids)} | extra)
                if int(counted[0]["n"]) != len(ids):
                    raise NotFound("memory", f"one of {', '.join(ids)}")
                await prune(tx, mentioned)

        # Entity MERGEs race like memorize's: a lost one is retried.
        await self._graph.write(work, merge_only=bool(plan.mentions))
