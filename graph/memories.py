"""Memories: written with their provenance edges in one transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, LiteralString, TypeVar

from neo4j import AsyncManagedTransaction

from graph.consolidation import carry_summaries, release_summarized
from graph.cypher import NODE_PROPS_N, VISIBLE_N, counted, cypher, locked
from graph.derivations import link_many_sources, link_sources
from graph.driver import GraphDriver, fetch
from graph.entities import mentioned_by, prune, write_mentions
from graph.filters import FILTER_M, filter_params
from graph.records import (
    MEMORY_MAP,
    float32,
    grouped,
    memory_from,
    memory_props,
    node_from,
    page,
)
from hippograph.errors import NotFound
from hippograph.models import (
    IndexedText,
    Memory,
    MemoryFilter,
    MemoryKind,
    Mentions,
    Page,
    ProvenanceNode,
    Sources,
)
from hippograph.pagination import TimeCursor, encode_time_cursor
from hippograph.text import user_token
from hippograph.versions import EDITABLE

N = TypeVar("N", bound=ProvenanceNode)

# A memory is created under its user, which it changes: the user's deletion
# changes the user too before it reads that no memory of theirs is left
# (graph/user_deletion.py), so a memory created meanwhile by another process
# is either read there or finds its user gone, and is not written. A new
# version (SUPERSEDE_MEMORY) needs no such change: it changes the version it
# replaces, which the deletion changes before it deletes it. The user is
# matched again once its lock is held: on Neo4j, a write that waited for the
# deletion's lock changed the deleted node without an error, and the memory
# was written (tests/graph/test_concurrency.py); no edge to the user fails
# as a session's does.
CREATE_MEMORIES = cypher(
    "memories.CREATE_MEMORIES",
    "UNWIND $rows AS row MATCH (u:User {id: row.user_id}) "
    + counted("u", "memory_writes")
    + "WITH row MATCH (u:User {id: row.user_id}) "
    "CREATE (m:Memory) SET m = row.props, m.embedding = row.embedding, "
    "m.search_text = row.search_text, m.user_key = row.user_key "
    "RETURN collect(DISTINCT u.id) AS users, count(m) AS created",
)
# One record holding every memory: each record costs the driver time in
# Python, and a search's hits (10) took 6.6 ms as ten records on Neo4j 5.26
# against 3.6 ms as one (ArcadeDB: 2.0 and 1.4).
GET_MEMORIES = cypher(
    "memories.GET_MEMORIES",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) RETURN collect(m " + MEMORY_MAP + ") AS rows",
)
LIST_MEMORIES = cypher(
    "memories.LIST_MEMORIES",
    "MATCH (m:Memory {user_id: $user_id}) WHERE " + FILTER_M + " "
    "AND ($after_ts IS NULL OR m.created_at < $after_ts "
    "OR (m.created_at = $after_ts AND m.id < $after_id)) "
    "WITH m ORDER BY m.created_at DESC, m.id DESC LIMIT $limit "
    "RETURN m " + MEMORY_MAP + " AS props",
)
# Tested under the node's lock (graph.cypher.locked): writers that all read
# the old version as current would otherwise all supersede it. A version
# superseded at a later instant than this write's ``$now`` (taken before the
# lock, by a request that waited) has a ``valid_to`` still ahead: it is told
# apart by its successor.
_LOCKED_CURRENT = locked("old") + (
    "WHERE old.deleted_at IS NULL AND (old.valid_to IS NULL OR old.valid_to > $now) "
    "AND COUNT { (old)<-[:SUPERSEDES]-() } = 0 "
)
# An edit in place waits for a new version being written, and then finds
# the old one superseded.
UPDATE_MEMORY = cypher(
    "memories.UPDATE_MEMORY",
    "MATCH (old:Memory {id: $id}) " + _LOCKED_CURRENT + "SET old += $changes "
    "WITH old AS m RETURN m " + MEMORY_MAP + " AS props",
)
# Two runs writing values of one user's profile at once must each see the
# other's: each first counts itself on the user (a real change, as
# CLAIM_SESSIONS's), so the second reads the profile after the first commits.
# Without it both new values of an attribute stayed current (memorize's
# runs, graph/ingest.py), or a correction of the current value and a new
# value from memorize both were (write_successor).
CLAIM_PROFILES = cypher(
    "memories.CLAIM_PROFILES",
    "UNWIND $ids AS uid MATCH (u:User {id: uid}) "
    + counted("u", "profile_writes")
    + "RETURN count(u) AS n",
)
# A new version is built from a read of the old one, and copies what an edit
# in place (UPDATE_MEMORY) changes: written only if those are still as read,
# or it would undo an edit committed in between.
_AS_READ: LiteralString = (
    "AND old.importance = $seen.importance "
    "AND coalesce(old.category, '') = coalesce($seen.category, '') "
    "AND coalesce(old.domain, '') = coalesce($seen.domain, '') "
    "AND coalesce(old.verified, false) = coalesce($seen.verified, false) "
)
SUPERSEDE_MEMORY = cypher(
    "memories.SUPERSEDE_MEMORY",
    "MATCH (old:Memory {id: $old_id}) " + _LOCKED_CURRENT + _AS_READ + "SET old.valid_to = $now "
    "CREATE (m:Memory) SET m = $props, m.embedding = $embedding, "
    "m.search_text = $search_text, m.user_key = $user_key "
    "CREATE (m)-[:SUPERSEDES]->(old) RETURN m.id AS id",
)
# Tested under the lock too: two deletes that both read it undeleted would
# both say they deleted it.
SOFT_DELETE_MEMORY = cypher(
    "memories.SOFT_DELETE_MEMORY",
    "MATCH (m:Memory {id: $id}) " + locked("m") + "WHERE m.deleted_at IS NULL "
    "SET m.deleted_at = $now RETURN m.id AS id",
)
HARD_DELETE_MEMORY = cypher(
    "memories.HARD_DELETE_MEMORY",
    "MATCH (m:Memory {id: $id}) DETACH DELETE m RETURN count(*) AS deleted",
)
DERIVED_FROM = cypher(
    "memories.DERIVED_FROM",
    "UNWIND $ids AS mid "
    "MATCH (:Memory {id: mid})-[:DERIVED_FROM]->(n) WHERE " + VISIBLE_N + " "
    "RETURN mid, labels(n) AS labels, " + NODE_PROPS_N + " AS props",
)
SUMMARIZED = cypher(
    "memories.SUMMARIZED",
    "UNWIND $ids AS rid MATCH (:Memory {id: rid})-[:SUMMARIZES]->(n:Memory) "
    "WHERE " + VISIBLE_N + " RETURN rid AS key, n " + MEMORY_MAP + " AS props",
)
SUMMARIZED_BY = cypher(
    "memories.SUMMARIZED_BY",
    "UNWIND $ids AS mid MATCH (n:Memory)-[:SUMMARIZES]->(:Memory {id: mid}) "
    "WHERE " + VISIBLE_N + " RETURN mid AS key, n " + MEMORY_MAP + " AS props",
)
COUNT_USER_MEMORIES = cypher(
    "memories.COUNT_USER_MEMORIES",
    "MATCH (m:Memory {user_id: $user_id}) RETURN count(m) AS n",
)
COUNT_MEMORIES = cypher("memories.COUNT_MEMORIES", "MATCH (m:Memory) RETURN count(m) AS n")


def memory_row(memory: Memory, indexed: IndexedText) -> dict[str, Any]:
    """The parameters that write ``memory`` with its vector and tokens."""
    return {
        "user_id": memory.user_id,
        "props": memory_props(memory),
        "embedding": float32(indexed.embedding),
        "search_text": indexed.search_text,
        "user_key": user_token(memory.user_id),
    }


async def create_memories(tx: AsyncManagedTransaction, rows: Sequence[dict[str, Any]]) -> None:
    """Create the memories of ``rows`` (:func:`memory_row`), each under its user;
    ``NotFound`` if a user is gone (deleted meanwhile), which rolls the transaction back."""
    if not rows:
        return
    written = (await fetch(tx, CREATE_MEMORIES, {"rows": list(rows)}))[0]
    if int(written["created"]) != len(rows):
        missing = sorted({row["user_id"] for row in rows} - set(written["users"]))
        raise NotFound("user", ", ".join(missing))


async def write_successor(
    tx: AsyncManagedTransaction, old: Memory, memory: Memory, indexed: IndexedText, now: datetime
) -> bool:
    """Create ``memory`` with ``SUPERSEDES`` to ``old``, whose ``valid_to`` becomes ``now``.

    False, with nothing written, when the old memory is not current (deleted,
    expired or already superseded), or was edited in place since ``old`` was
    read. ``updateMemory`` and ``applyMemoryOps`` both write a new version
    through here, each in its own transaction.
    """
    if old.kind is MemoryKind.PROFILE:
        await fetch(tx, CLAIM_PROFILES, {"ids": [old.user_id]})
    seen = memory_props(old)
    params = memory_row(memory, indexed) | {
        "old_id": old.id,
        "now": now,
        "seen": {key: seen.get(key) for key in EDITABLE},
    }
    if not await fetch(tx, SUPERSEDE_MEMORY, params):
        return False
    # A corrected reflection still summarises its facts (graph/consolidation.py).
    await carry_summaries(tx, old.id, memory.id)
    return True


class MemoryGraph:
    """Memories in the graph."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def add(
        self,
        memory: Memory,
        indexed: IndexedText,
        sources: Sources,
        mentions: Sequence[Mentions] = (),
    ) -> None:
        """Store ``memory`` with a DERIVED_FROM edge to each source and the
        entities it mentions, all or nothing."""

        async def work(tx: AsyncManagedTransaction) -> None:
            await create_memories(tx, [memory_row(memory, indexed)])
            await link_sources(tx, memory.id, sources)
            await write_mentions(tx, mentions)

        # Entity MERGEs race like memorize's (see add_many).
        await self._graph.write(work, merge_only=bool(mentions))

    async def add_many(
        self,
        items: Sequence[tuple[Memory, IndexedText, Sources]],
        mentions: Sequence[Mentions] = (),
    ) -> int:
        """Store many memories, their edges and the entities they mention in one transaction."""
        rows = [memory_row(memory, indexed) for memory, indexed, _ in items]

        async def work(tx: AsyncManagedTransaction) -> int:
            await create_memories(tx, rows)
            await link_many_sources(tx, items)
            await write_mentions(tx, mentions)
            return len(rows)

        # Two writers of one user's entities race to MERGE the same ids: on
        # ArcadeDB the loser gets a ConstraintError, retried like memorize's.
        return await self._graph.write(work, merge_only=bool(mentions))

    async def get_memories(self, ids: Sequence[str]) -> dict[str, Memory]:
        """The memories among ``ids`` that exist, by id."""
        records = await self._graph.query(GET_MEMORIES, {"ids": list(ids)})
        rows = records[0]["rows"] if records else []
        return {props["id"]: memory_from(props) for props in rows}

    async def list_memories(
        self,
        user_id: str,
        memory_filter: MemoryFilter,
        first: int,
        after: TimeCursor | None,
        now: datetime,
    ) -> Page[Memory]:
        """A page of ``user_id``'s memories, newest first."""
        params = filter_params(memory_filter, now) | {
            "user_id": user_id,
            "limit": first + 1,
            "after_ts": after.at if after else None,
            "after_id": after.id if after else None,
        }
        rows = await self._graph.query(LIST_MEMORIES, params)
        items = [memory_from(row["props"]) for row in rows]
        return page(items, first, lambda m: encode_time_cursor(m.created_at, m.id))

    async def update(
        self, memory_id: str, changes: Mapping[str, Any], now: datetime
    ) -> Memory | None:
        """Set ``changes`` on a current memory in place; None if it is missing, deleted or
        superseded (by ``now``), as an edit that raced a new version would find it."""

        async def work(tx: AsyncManagedTransaction) -> Memory | None:
            params = {"id": memory_id, "changes": dict(changes), "now": now}
            rows = await fetch(tx, UPDATE_MEMORY, params)
            return memory_from(rows[0]["props"]) if rows else None

        return await self._graph.write(work)

    async def supersede(
        self,
        old: Memory,
        memory: Memory,
        indexed: IndexedText,
        sources: Sources,
        now: datetime,
        mentions: Sequence[Mentions] = (),
    ) -> bool:
        """Store ``memory`` as the successor of ``old`` (SUPERSEDES, ``valid_to``).

        False, with nothing written, when the old memory is not current, or
        not as ``old`` read it (see :func:`write_successor`).
        """

        async def work(tx: AsyncManagedTransaction) -> bool:
            if not await write_successor(tx, old, memory, indexed, now):
                return False
            await link_sources(tx, memory.id, sources)
            await write_mentions(tx, mentions)
            return True

        return await self._graph.write(work, merge_only=bool(mentions))

    async def soft_delete(self, memory_id: str, now: datetime) -> bool:
        """Mark a memory deleted; False if it was missing or already deleted."""

        async def work(tx: AsyncManagedTransaction) -> bool:
            if not await fetch(tx, SOFT_DELETE_MEMORY, {"id": memory_id, "now": now}):
                return False
            await release_summarized(tx, [memory_id], now)
            return True

        return await self._graph.write(work)

    async def hard_delete(self, memory_id: str, now: datetime) -> bool:
        """Remove a memory, its edges and its vector; False if it was missing. A
        reflection's facts are handed back first (graph/consolidation.py)."""

        async def work(tx: AsyncManagedTransaction) -> bool:
            await release_summarized(tx, [memory_id], now)
            mentioned = await mentioned_by(tx, "Memory", [memory_id])
            rows = await fetch(tx, HARD_DELETE_MEMORY, {"id": memory_id})
            await prune(tx, mentioned)
            return bool(rows) and int(rows[0]["deleted"]) > 0

        return await self._graph.write(work)

    async def derived_from(
        self, memory_ids: Sequence[str], scope: list[str] | None
    ) -> dict[str, list[ProvenanceNode]]:
        """What each memory was derived from (messages, MemUnits, memories)."""
        rows = await self._graph.query(DERIVED_FROM, {"ids": list(memory_ids), "scope": scope})
        found = grouped(rows, memory_ids, "mid", lambda row: node_from(row["labels"], row["props"]))
        return _in_id_order(found)

    async def summaries(
        self, memory_ids: Sequence[str], scope: list[str] | None, *, by: bool
    ) -> dict[str, list[Memory]]:
        """What each reflection summarises, or (``by``) the reflections summarising each memory."""
        query = SUMMARIZED_BY if by else SUMMARIZED
        rows = await self._graph.query(query, {"ids": list(memory_ids), "scope": scope})
        return _in_id_order(grouped(rows, memory_ids, "key", lambda row: memory_from(row["props"])))

    async def count(self, user_id: str | None = None) -> int:
        """How many memories ``user_id`` has (all users' when None)."""
        if user_id is None:
            rows = await self._graph.query(COUNT_MEMORIES)
        else:
            rows = await self._graph.query(COUNT_USER_MEMORIES, {"user_id": user_id})
        return int(rows[0]["n"])


def _in_id_order(found: dict[str, list[N]]) -> dict[str, list[N]]:
    """``found`` with each list in id order."""
    for nodes in found.values():
        nodes.sort(key=lambda n: n.id)
    return found
