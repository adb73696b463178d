"""Reflection's reads (pending facts, last reflection) and its one write.

The write creates every reflection of a run with its SUMMARIZES edges and
marks the covered facts consolidated, in one transaction: a worker killed
mid-job leaves all of it or none. A reflection whose id exists, or whose
facts another run consolidated meanwhile, is skipped, so the same job twice
or two workers at once make each reflection once; two runs racing past the
check both CREATE the same id, and the unique constraint fails the loser,
which is retried and then skips it (``merge_only``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from neo4j import AsyncManagedTransaction

from graph.cypher import cypher, locked, provenance_write
from graph.driver import GraphDriver, fetch
from graph.memories import create_memories, memory_row
from graph.records import to_utc_or_none
from hippograph.models import IndexedText, Memory
from hippograph.reflection import PendingFact

# What a reflection may cover: current, unconsolidated memories of the given
# kinds (facts, profile attributes, and reflections: reflections of
# reflections make the higher levels) that existed when the run was asked
# for (``$as_of``): a retried run must not reflect on what its first attempt
# wrote.
PENDING_FACTS = cypher(
    "reflection.PENDING_FACTS",
    "MATCH (m:Memory {user_id: $user_id}) "
    "WHERE m.kind IN $kinds AND coalesce(m.consolidated, false) = false "
    "AND m.deleted_at IS NULL AND (m.valid_to IS NULL OR m.valid_to > $now) "
    "AND m.created_at <= $as_of "
    "RETURN m.id AS id, m.content AS content, m.importance AS importance, "
    "m.embedding AS embedding, m.kind AS kind, m.topic AS topic "
    "ORDER BY m.created_at ASC, m.id ASC LIMIT $limit",
)
# What makes a user due: facts waiting for a reflection, but not those a
# reflection the user deleted had summarised. They wait for a new one, and
# join it, but do not ask for it alone: that run would make the deleted
# reflection again (its id derives from its facts), which it refuses, every
# sweep, for good.
_DUE = "AND COUNT { (r:Memory)-[:SUMMARIZES]->(m) WHERE r.deleted_at IS NOT NULL } = 0 "
PENDING_TOTAL = cypher(
    "reflection.PENDING_TOTAL",
    "MATCH (m:Memory {user_id: $user_id}) "
    "WHERE m.kind IN $kinds AND coalesce(m.consolidated, false) = false "
    "AND m.deleted_at IS NULL AND (m.valid_to IS NULL OR m.valid_to > $now) "
    "AND m.created_at <= $as_of " + _DUE + "RETURN count(m) AS n, sum(m.importance) AS importance",
)
# The cooldown's start: a reflection the user deleted starts none, or
# deleting a wrong one would hold its facts back for the whole cooldown.
LAST_REFLECTION = cypher(
    "reflection.LAST_REFLECTION",
    "MATCH (m:Memory {user_id: $user_id}) WHERE m.kind = 'reflection' AND m.deleted_at IS NULL "
    "RETURN max(m.created_at) AS at",
)
USERS_WITH_PENDING = cypher(
    "reflection.USERS_WITH_PENDING",
    "MATCH (m:Memory) WHERE m.user_id > $after AND m.kind IN $kinds "
    "AND coalesce(m.consolidated, false) = false AND m.deleted_at IS NULL "
    "AND (m.valid_to IS NULL OR m.valid_to > $now) "
    + _DUE
    + "WITH m.user_id AS user_id, sum(m.importance) AS importance, count(m) AS n "
    "WHERE n >= $min_facts AND importance >= $min_importance "
    # Memories a deleted user left (before a memory's creation needed its
    # user, graph/memories.py) have no one a reflection could be written under.
    "MATCH (:User {id: user_id}) "
    "RETURN user_id ORDER BY user_id LIMIT $limit",
)
REFLECTION_EXISTS = cypher(
    "reflection.REFLECTION_EXISTS",
    "MATCH (r:Memory {id: $id}) RETURN r.id AS id",
)
# Only facts still free are claimed; the caller compares the count. Each is
# tested under its write lock, taken in id order: on Neo4j two runs that both
# read a shared fact as free first would both summarise it.
CLAIM_FACTS = cypher(
    "reflection.CLAIM_FACTS",
    "UNWIND $ids AS id MATCH (f:Memory {id: id}) "
    + locked("f")
    + "WHERE coalesce(f.consolidated, false) = false AND f.deleted_at IS NULL "
    "RETURN count(f) AS free",
)
SUMMARIZE_FACTS = cypher(
    "reflection.SUMMARIZE_FACTS",
    "MATCH (r:Memory {id: $id}) UNWIND $ids AS fid MATCH (f:Memory {id: fid}) "
    "CREATE (r)-[:SUMMARIZES]->(f) SET f.consolidated = true "
    + provenance_write("f")
    + "RETURN count(f) AS n",
)

# A reflection names what its facts name: once they are consolidated (hidden
# from a default search), the entity walk reaches the knowledge through it.
INHERIT_MENTIONS = cypher(
    "reflection.INHERIT_MENTIONS",
    "MATCH (r:Memory {id: $id})-[:SUMMARIZES]->(:Memory)-[:MENTIONS]->(e:Entity) "
    "WITH r, collect(DISTINCT e) AS named UNWIND named AS e "
    "CREATE (r)-[:MENTIONS]->(e) RETURN count(e) AS n",
)


class ReflectionGraph:
    """Reflection in the graph."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def pending_total(
        self, user_id: str, kinds: Sequence[str], now: datetime, as_of: datetime
    ) -> tuple[int, float]:
        """How many facts await a reflection, and their summed importance (a cheap check)."""

        async def work(tx: AsyncManagedTransaction) -> tuple[int, float]:
            params = {"user_id": user_id, "kinds": list(kinds), "now": now, "as_of": as_of}
            rows = await fetch(tx, PENDING_TOTAL, params)
            return int(rows[0]["n"]), float(rows[0]["importance"] or 0.0)

        return await self._graph.read(work)

    async def pending(
        self, user_id: str, kinds: Sequence[str], now: datetime, as_of: datetime, limit: int
    ) -> list[PendingFact]:
        """The facts awaiting a reflection (made by ``as_of``), with their vectors, oldest first."""

        async def work(tx: AsyncManagedTransaction) -> list[PendingFact]:
            params = {
                "user_id": user_id,
                "kinds": list(kinds),
                "now": now,
                "as_of": as_of,
                "limit": limit,
            }
            rows = await fetch(tx, PENDING_FACTS, params)
            return [
                PendingFact(
                    id=row["id"],
                    content=row["content"],
                    importance=float(row["importance"]),
                    vector=list(row["embedding"] or []),
                    kind=str(row["kind"]),
                    topic=row["topic"],
                )
                for row in rows
            ]

        return await self._graph.read(work)

    async def last_reflection_at(self, user_id: str) -> datetime | None:
        """When the user's newest reflection was made."""

        async def work(tx: AsyncManagedTransaction) -> datetime | None:
            rows = await fetch(tx, LAST_REFLECTION, {"user_id": user_id})
            return to_utc_or_none(rows[0]["at"]) if rows else None

        return await self._graph.read(work)

    async def users_with_pending(
        self,
        kinds: Sequence[str],
        min_facts: int,
        min_importance: float,
        after: str,
        limit: int,
        now: datetime,
    ) -> list[str]:
        """The users after ``after`` (by id) whose pending facts (current at ``now``, as
        a run counts them) could make a reflection."""

        async def work(tx: AsyncManagedTransaction) -> list[str]:
            params = {
                "now": now,
                "after": after,
                "kinds": list(kinds),
                "min_facts": min_facts,
                "min_importance": min_importance,
                "limit": limit,
            }
            return [row["user_id"] for row in await fetch(tx, USERS_WITH_PENDING, params)]

        return await self._graph.read(work)

    async def write(
        self, reflections: Sequence[tuple[Memory, IndexedText, Sequence[str]]]
    ) -> tuple[int, int]:
        """Create the reflections still to make; returns (reflections, facts consolidated)."""

        async def work(tx: AsyncManagedTransaction) -> tuple[int, int]:
            made = consolidated = 0
            for memory, indexed, fact_ids in reflections:
                if await fetch(tx, REFLECTION_EXISTS, {"id": memory.id}):
                    continue
                free = await fetch(tx, CLAIM_FACTS, {"ids": sorted(fact_ids)})
                if int(free[0]["free"]) != len(fact_ids):
                    continue  # another run took some of these facts: its reflection stands
                await create_memories(tx, [memory_row(memory, indexed)])
                rows = await fetch(tx, SUMMARIZE_FACTS, {"id": memory.id, "ids": list(fact_ids)})
                await fetch(tx, INHERIT_MENTIONS, {"id": memory.id})
                made += 1
                consolidated += int(rows[0]["n"])
            return made, consolidated

        return await self._graph.write(work, merge_only=True)
