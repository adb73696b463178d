"""Re-embedding: pages of the nodes that hold a vector, what each vector is made of, writes.

A run has an id; every node it re-embeds is written with that id
(``reindex_run``) in the same transaction as its new vector, so a run that
is killed and started again reads only what is left. Pages go in id order
from a cursor, and each page is one transaction: a kill loses at most the
page in flight, which the next run writes once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncManagedTransaction

from graph.codec import to_utc
from graph.cypher import cypher
from graph.driver import GraphDriver, fetch
from graph.records import float32
from hippograph.reembedding import StoredMemory, Turn

_LEFT = "coalesce(n.reindex_run, '') <> $run AND n.embedding IS NOT NULL"
COUNT_LEFT = cypher(
    "reindex.COUNT_LEFT",
    "CALL () { MATCH (n:Memory) WHERE " + _LEFT + " RETURN count(n) AS memories } "
    "CALL () { MATCH (n:MemUnit) WHERE " + _LEFT + " RETURN count(n) AS units } "
    "RETURN memories, units",
)
MEMORY_PAGE = cypher(
    "reindex.MEMORY_PAGE",
    "MATCH (n:Memory) WHERE n.id > $after AND " + _LEFT + " "
    "RETURN n.id AS id, n.kind AS kind, n.level AS level, n.source AS source, "
    "n.content AS content ORDER BY n.id LIMIT $limit",
)
UNIT_PAGE = cypher(
    "reindex.UNIT_PAGE",
    "MATCH (n:MemUnit) WHERE n.id > $after AND " + _LEFT + " "
    "RETURN n.id AS id, n.summary AS summary ORDER BY n.id LIMIT $limit",
)
# The messages each node's vector is made of: a memory's own sources, a unit's messages.
MEMORY_MESSAGES = cypher(
    "reindex.MEMORY_MESSAGES",
    "UNWIND $ids AS id MATCH (m:Memory {id: id})-[:DERIVED_FROM]->(msg:Message) "
    "RETURN id, msg.speaker AS speaker, msg.content AS content, "
    "msg.session_id AS session_id, msg.seq AS seq, msg.ts AS ts",
)
UNIT_MESSAGES = cypher(
    "reindex.UNIT_MESSAGES",
    "UNWIND $ids AS id MATCH (u:MemUnit {id: id})-[:DERIVED_FROM]->(msg:Message) "
    "RETURN id, msg.speaker AS speaker, msg.content AS content, "
    "msg.session_id AS session_id, msg.seq AS seq, msg.ts AS ts",
)
PREVIOUS_MESSAGES = cypher(
    "reindex.PREVIOUS_MESSAGES",
    "UNWIND $positions AS position "
    "MATCH (msg:Message {session_id: position[0]}) WHERE msg.seq = position[1] - 1 "
    "RETURN position[0] AS session_id, position[1] AS seq, msg.speaker AS speaker, "
    "msg.content AS content",
)
WRITE_MEMORIES = cypher(
    "reindex.WRITE_MEMORIES",
    "UNWIND $rows AS row MATCH (n:Memory {id: row.id}) "
    "SET n.embedding = row.embedding, n.reindex_run = $run RETURN count(n) AS written",
)
WRITE_UNITS = cypher(
    "reindex.WRITE_UNITS",
    "UNWIND $rows AS row MATCH (n:MemUnit {id: row.id}) "
    "SET n.embedding = row.embedding, n.reindex_run = $run RETURN count(n) AS written",
)


@dataclass
class ReindexGraph:
    """The graph side of ``hippograph reindex``."""

    graph: GraphDriver

    async def left(self, run: str) -> tuple[int, int]:
        """Memories and MemUnits with a vector that run ``run`` has not written yet."""
        rows = await self.graph.query(COUNT_LEFT, {"run": run})
        return int(rows[0]["memories"]), int(rows[0]["units"])

    async def memory_page(self, run: str, after: str, limit: int) -> list[StoredMemory]:
        """The next ``limit`` memories after id ``after`` that run ``run`` has not written."""
        rows = await self.graph.query(MEMORY_PAGE, {"run": run, "after": after, "limit": limit})
        return [
            StoredMemory(
                str(r["id"]),
                str(r["kind"]),
                str(r["level"] or ""),
                str(r["source"] or ""),
                str(r["content"] or ""),
            )
            for r in rows
        ]

    async def unit_page(self, run: str, after: str, limit: int) -> list[tuple[str, str]]:
        """The next ``limit`` MemUnits (id, summary) after id ``after`` that run ``run`` has
        not written."""
        rows = await self.graph.query(UNIT_PAGE, {"run": run, "after": after, "limit": limit})
        return [(str(r["id"]), str(r["summary"] or "")) for r in rows]

    async def memory_messages(self, ids: Sequence[str]) -> dict[str, list[Turn]]:
        """Each memory's source messages, in conversation order."""
        return await self._turns(MEMORY_MESSAGES, ids)

    async def unit_messages(self, ids: Sequence[str]) -> dict[str, list[Turn]]:
        """Each MemUnit's messages, in conversation order."""
        return await self._turns(UNIT_MESSAGES, ids)

    async def previous(self, turns: Sequence[Turn]) -> dict[tuple[str, int], Turn]:
        """The message before each turn in its session, by the turn's (session, seq)."""
        positions = sorted({(t.session_id, t.seq) for t in turns})
        if not positions:
            return {}
        rows = await self.graph.query(PREVIOUS_MESSAGES, {"positions": positions})
        return {
            (str(r["session_id"]), int(r["seq"])): Turn(
                str(r["speaker"]), str(r["content"]), str(r["session_id"]), int(r["seq"]) - 1
            )
            for r in rows
        }

    async def write_memories(self, run: str, vectors: dict[str, list[float]]) -> int:
        """Store each memory's new vector, marked as run ``run``'s, in one transaction."""
        return await self._write(WRITE_MEMORIES, run, vectors)

    async def write_units(self, run: str, vectors: dict[str, list[float]]) -> int:
        """Store each MemUnit's new vector, marked as run ``run``'s, in one transaction."""
        return await self._write(WRITE_UNITS, run, vectors)

    async def _turns(self, statement: str, ids: Sequence[str]) -> dict[str, list[Turn]]:
        if not ids:
            return {}
        rows = await self.graph.query(statement, {"ids": list(ids)})
        # Each turn with when it was said: a memory said in two sessions takes the
        # earlier statement, as memorize did (session ids do not run in time).
        found: defaultdict[str, dict[Turn, datetime]] = defaultdict(dict)
        for r in rows:
            turn = Turn(str(r["speaker"]), str(r["content"]), str(r["session_id"]), int(r["seq"]))
            found[str(r["id"])][turn] = to_utc(r["ts"])
        return {
            key: sorted(turns, key=lambda t: (turns[t], t.session_id, t.seq))
            for key, turns in found.items()
        }

    async def _write(self, statement: str, run: str, vectors: dict[str, list[float]]) -> int:
        rows = [{"id": key, "embedding": float32(v)} for key, v in vectors.items()]

        async def work(tx: AsyncManagedTransaction) -> int:
            written = await fetch(tx, statement, {"rows": rows, "run": run})
            return int(written[0]["written"])

        return await self.graph.write(work)
