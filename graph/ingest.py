"""Memorize's write: MemUnits and the memories drawn from them, in one transaction.

Everything a request produced is written together or not at all, so a
crash never leaves a MemUnit without its memories. Ids are deterministic
(hippograph/extraction/assemble.py): what exists is read first and not
created again, so a replay or a job run twice writes nothing new; a memory
that exists only gains the sources it lacks (a fact said again later is
derived from both statements). Two runs racing past that
read both CREATE the same id; the unique constraint fails the loser, which
is retried and then finds the winner's nodes (``merge_only``).

Every link must find its source (graph/links.py): a short count rolls the
transaction back and it is tried again; a source still missing is NotFound.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction, Record

from graph.codec import to_utc
from graph.cypher import counted, cypher, provenance_write
from graph.derivations import link_many_sources
from graph.driver import GraphDriver, fetch
from graph.entities import write_mentions
from graph.links import require_linked
from graph.memories import CLAIM_PROFILES, create_memories, memory_row
from graph.memunits import memunit_user_key
from graph.records import MESSAGE_MAP, float32, memunit_props, message_from
from hippograph.models import (
    IndexedText,
    IngestBatch,
    IngestCounts,
    Memory,
    MemoryKind,
    MemUnit,
    Message,
    Sources,
)
from hippograph.versions import returned_id

EXISTING_UNITS = cypher(
    "ingest.EXISTING_UNITS",
    "UNWIND $ids AS id MATCH (n:MemUnit {id: id}) RETURN n.id AS id",
)
EXISTING_MEMORIES = cypher(
    "ingest.EXISTING_MEMORIES",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) "
    "RETURN m.id AS id, m.deleted_at IS NULL AS live, m.valid_to AS valid_to",
)
# The current value of some profile attributes: whether a value said again
# after another replaced it is the current one already.
CURRENT_VALUES = cypher(
    "ingest.CURRENT_VALUES",
    "UNWIND $rows AS row "
    "MATCH (m:Memory {user_id: row.user_id}) "
    "WHERE m.kind = 'profile' AND m.topic = row.topic "
    "AND m.deleted_at IS NULL AND m.valid_to IS NULL "
    "RETURN row.id AS for_id, m.id AS id, m.content AS content",
)
CREATE_UNITS = cypher(
    "ingest.CREATE_UNITS",
    "UNWIND $rows AS row CREATE (n:MemUnit) SET n = row.props, n.embedding = row.embedding, "
    "n.search_text = row.search_text, n.user_key = row.user_key RETURN count(n) AS created",
)
# Two runs must not both find the messages free: each first writes a count
# on the sessions its units are of, which makes them wait for each other
# (Neo4j locks the node; ArcadeDB refuses the second writer of a record and
# retries it). A SET of a value unchanged would do on Neo4j but not on
# ArcadeDB, which sees no change: without this, two runs made a unit each of
# one message on both servers.
CLAIM_SESSIONS = cypher(
    "ingest.CLAIM_SESSIONS",
    "UNWIND $ids AS sid MATCH (s:Session {id: sid}) "
    + counted("s", "memorize_writes")
    + "RETURN count(s) AS n",
)
# Messages another run already made a MemUnit of: two memorize runs of one
# session that read its unprocessed messages at the same time segment them
# each, and only the first to write keeps them.
TAKEN_MESSAGES = cypher(
    "ingest.TAKEN_MESSAGES",
    "UNWIND $ids AS mid MATCH (:MemUnit)-[:DERIVED_FROM]->(m:Message {id: mid}) "
    "RETURN collect(DISTINCT mid) AS taken",
)
LINK_UNIT_MESSAGES = cypher(
    "ingest.LINK_UNIT_MESSAGES",
    "UNWIND $links AS link MATCH (n:MemUnit {id: link.unit}) MATCH (x:Message {id: link.source}) "
    "MERGE (n)-[:DERIVED_FROM]->(x) " + provenance_write("x") + "RETURN count(x) AS linked",
)


def _before(a: LiteralString, b: LiteralString) -> LiteralString:
    """Whether profile value ``a`` came before ``b`` (each a node, or a row with the same
    keys), by (time, position in its session, id): two values said in one call without
    times (the same instant) must not supersede each other."""
    at_a, at_b = a + ".created_at", b + ".created_at"
    seq_a, seq_b = "coalesce(" + a + ".seq, -1)", "coalesce(" + b + ".seq, -1)"
    # Lexicographic, a level at a time: time, then position, then id.
    by_id: LiteralString = seq_a + " = " + seq_b + " AND " + a + ".id < " + b + ".id"
    by_seq: LiteralString = seq_a + " < " + seq_b + " OR (" + by_id + ")"
    same_time: LiteralString = at_a + " = " + at_b + " AND (" + by_seq + ")"
    return "(" + at_a + " < " + at_b + " OR (" + same_time + "))"


# A new value of a profile attribute supersedes the current one (nothing is
# destroyed: the old one keeps its text and gets valid_to). Only older values
# are superseded, so importing conversations out of order keeps the newest.
SUPERSEDE_PROFILE = cypher(
    "ingest.SUPERSEDE_PROFILE",
    "UNWIND $rows AS row "
    "MATCH (new:Memory {id: row.id}) "
    "MATCH (old:Memory {user_id: row.user_id}) "
    "WHERE old.kind = 'profile' AND old.topic = row.topic AND old.id <> row.id "
    "AND old.deleted_at IS NULL AND old.valid_to IS NULL AND " + _before("old", "row") + " "
    "SET old.valid_to = row.created_at "
    "MERGE (new)-[:SUPERSEDES]->(old) RETURN count(old) AS superseded",
)
# A new value older than the current one (a conversation imported out of
# order) is history at once: the next newer current value supersedes it.
SUPERSEDED_ON_ARRIVAL = cypher(
    "ingest.SUPERSEDED_ON_ARRIVAL",
    "UNWIND $rows AS row "
    "MATCH (new:Memory {id: row.id}) WHERE new.valid_to IS NULL "
    "MATCH (newer:Memory {user_id: row.user_id}) "
    "WHERE newer.kind = 'profile' AND newer.topic = row.topic AND newer.id <> row.id "
    "AND newer.deleted_at IS NULL AND newer.valid_to IS NULL AND " + _before("row", "newer") + " "
    "WITH new, newer ORDER BY newer.created_at ASC "
    "WITH new, collect(newer)[0] AS next "
    "SET new.valid_to = next.created_at "
    "MERGE (next)-[:SUPERSEDES]->(new) RETURN count(new) AS superseded",
)
# The messages of a session that no MemUnit was made from yet: what memorize
# still has to do there (a pending tail, or a run cut short). Not those of a
# unit that was deleted (graph/cascade.py): that would make it again.
UNPROCESSED_MESSAGES = cypher(
    "ingest.UNPROCESSED_MESSAGES",
    "MATCH (n:Message {session_id: $session_id}) WHERE n.unit_deleted IS NULL "
    "OPTIONAL MATCH (u:MemUnit)-[:DERIVED_FROM]->(n) "
    "WITH n, count(u) AS units WHERE units = 0 "
    "RETURN n " + MESSAGE_MAP + " AS props ORDER BY n.seq ASC LIMIT $limit",
)
# The profile values on record for some users: what an extractor is shown so
# that a changed value is written under the attribute it replaces.
CURRENT_PROFILE = cypher(
    "ingest.CURRENT_PROFILE",
    "MATCH (m:Memory) WHERE m.user_id IN $user_ids AND m.kind = 'profile' "
    "AND m.deleted_at IS NULL AND m.valid_to IS NULL "
    "RETURN m.user_id AS user_id, m.topic AS attribute, m.content AS content, "
    "m.created_at AS at ORDER BY at DESC LIMIT $limit",
)
PREVIOUS_MESSAGE = cypher(
    "ingest.PREVIOUS_MESSAGE",
    "MATCH (n:Message {session_id: $session_id}) WHERE n.seq < $seq "
    "RETURN n " + MESSAGE_MAP + " AS props ORDER BY n.seq DESC LIMIT 1",
)


class IngestGraph:
    """The memorize pipeline's reads and its one write."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def unprocessed(self, session_id: str, limit: int) -> list[Message]:
        """Messages of a session not yet in any MemUnit, in order."""

        async def work(tx: AsyncManagedTransaction) -> list[Message]:
            rows = await fetch(tx, UNPROCESSED_MESSAGES, {"session_id": session_id, "limit": limit})
            return [message_from(row["props"]) for row in rows]

        return await self._graph.read(work)

    async def previous(self, session_id: str, seq: int) -> Message | None:
        """The message just before ``seq`` in a session, if any."""

        async def work(tx: AsyncManagedTransaction) -> Message | None:
            rows = await fetch(tx, PREVIOUS_MESSAGE, {"session_id": session_id, "seq": seq})
            return message_from(rows[0]["props"]) if rows else None

        return await self._graph.read(work)

    async def profiles(self, user_ids: Sequence[str], limit: int) -> dict[str, dict[str, str]]:
        """The current profile of each user (attribute -> value), newest ``limit`` in all."""

        async def work(tx: AsyncManagedTransaction) -> dict[str, dict[str, str]]:
            params = {"user_ids": list(user_ids), "limit": limit}
            found: dict[str, dict[str, str]] = {}
            for row in await fetch(tx, CURRENT_PROFILE, params):
                if row["attribute"]:
                    # "Name's attribute: value", as memorize writes it.
                    value = str(row["content"]).split(": ", 1)[-1]
                    found.setdefault(row["user_id"], {}).setdefault(row["attribute"], value)
            return found

        return await self._graph.read(work)

    async def write(self, batch: IngestBatch) -> IngestCounts:
        """Create what is new of ``batch`` with its edges, all in one transaction."""

        async def work(tx: AsyncManagedTransaction) -> IngestCounts:
            profiled = sorted({m.user_id for m in _profile(batch.memories)})
            if profiled:
                await fetch(tx, CLAIM_PROFILES, {"ids": profiled})
            unit_ids = [u.id for u, _, _ in batch.units]
            returns = {m.id: returned_id(m.id, m.created_at) for m in _profile(batch.memories)}
            memory_ids = [m.id for m, _, _ in batch.memories] + list(returns.values())
            have_units = {r["id"] for r in await fetch(tx, EXISTING_UNITS, {"ids": unit_ids})}
            existing = await fetch(tx, EXISTING_MEMORIES, {"ids": memory_ids})
            renamed, current = await _returned(tx, batch.memories, returns, existing)
            have = {r["id"] for r in existing} | current
            live = {r["id"] for r in existing if r["live"]} | current
            batch_memories = [
                (replace(m, id=renamed.get(m.id, m.id)), i, s) for m, i, s in batch.memories
            ]
            units = [u for u in batch.units if u[0].id not in have_units]
            memories = [m for m in batch_memories if m[0].id not in have]
            # A fact said again in a later run is the memory that exists, and
            # the new statement becomes one more of its sources (MERGE: a
            # replay links nothing new). A deleted memory stays as it was.
            restated = [m for m in batch_memories if m[0].id in live]
            units, memories, restated = await _untaken(tx, units, memories, restated)
            if units:
                await fetch(tx, CREATE_UNITS, {"rows": [_unit_row(*u[:2]) for u in units]})
                links = [{"unit": u.id, "source": mid} for u, _, mids in units for mid in mids]
                await _link_units(tx, links)
            await create_memories(tx, [memory_row(m, i) for m, i, _ in memories])
            await link_many_sources(tx, memories + restated)
            # Only what this run created: a replay or a racing run wrote the rest.
            new_ids = {m.id for m, _, _ in memories} | {mid for u, _, mids in units for mid in mids}
            mentions = [
                replace(m, node_id=renamed.get(m.node_id, m.node_id)) for m in batch.mentions
            ]
            await write_mentions(tx, [m for m in mentions if m.node_id in new_ids])
            profile = [
                {
                    "id": m.id,
                    "user_id": m.user_id,
                    "topic": m.topic,
                    "created_at": m.created_at,
                    "seq": m.seq,
                }
                for m, _, _ in memories
                if m.kind is MemoryKind.PROFILE and m.topic
            ]
            superseded = 0
            for query in (SUPERSEDE_PROFILE, SUPERSEDED_ON_ARRIVAL) if profile else ():
                rows = await fetch(tx, query, {"rows": profile})
                superseded += int(rows[0]["superseded"]) if rows else 0
            return IngestCounts(
                memunits=len(units),
                memories=len(memories),
                superseded=superseded,
                created=tuple(m for m, _, _ in memories),
            )

        return await self._graph.write(work, merge_only=True)


Units = list[tuple[MemUnit, IndexedText, Sequence[str]]]
Memories = list[tuple[Memory, IndexedText, Sources]]


def _profile(memories: Sequence[tuple[Memory, IndexedText, Sources]]) -> list[Memory]:
    """The profile values among ``memories``."""
    return [m for m, _, _ in memories if m.kind is MemoryKind.PROFILE and m.topic]


async def _returned(
    tx: AsyncManagedTransaction,
    memories: Sequence[tuple[Memory, IndexedText, Sources]],
    returns: dict[str, str],
    existing: Sequence[Record],
) -> tuple[dict[str, str], set[str]]:
    """The profile values said again after another value replaced them: the id each
    is written under (batch id -> id), and those of them that are current already.

    Lisbon, then Porto, then Lisbon again: the first Lisbon was superseded and
    keeps its period; the third statement is a version of its own (its
    ``returned_id``), which supersedes Porto. A statement that falls in the
    old value's period, or a value that is current already, stays a source of
    the memory that holds it.
    """
    found = {row["id"]: row for row in existing}
    renamed = {b: again for b, again in returns.items() if again in found}
    after = [
        m
        for m in _profile(memories)
        if m.id not in renamed
        and m.id in found
        and found[m.id]["live"]
        and found[m.id]["valid_to"] is not None
        and to_utc(found[m.id]["valid_to"]) <= m.created_at
    ]
    if not after:
        return renamed, set()
    rows = [{"id": m.id, "user_id": m.user_id, "topic": m.topic} for m in after]
    current = {r["for_id"]: r for r in await fetch(tx, CURRENT_VALUES, {"rows": rows})}
    held: set[str] = set()
    for m in after:
        now = current.get(m.id)
        if now is not None and str(now["content"]).casefold() == m.content.casefold():
            renamed[m.id] = now["id"]
            held.add(now["id"])
        else:
            renamed[m.id] = returns[m.id]
    return renamed, held


async def _untaken(
    tx: AsyncManagedTransaction, units: Units, memories: Memories, restated: Memories
) -> tuple[Units, Memories, Memories]:
    """The new units none of whose messages another run made a unit of, and the
    memories not drawn from the others. What is left out stands in the other
    run's units; a message of a left-out unit that no unit holds stays
    unprocessed, for the session's next memorize."""
    ids = [mid for _, _, mids in units for mid in mids]
    if ids:
        sessions = sorted({u.session_id for u, _, _ in units})
        await fetch(tx, CLAIM_SESSIONS, {"ids": sessions})
    rows = await fetch(tx, TAKEN_MESSAGES, {"ids": ids}) if ids else []
    taken = set(rows[0]["taken"]) if rows else set()
    if not taken:
        return units, memories, restated
    lost = [(u.id, set(mids)) for u, _, mids in units if taken & set(mids)]
    lost_units = {unit_id for unit_id, _ in lost}
    lost_messages = set().union(*(mids for _, mids in lost))

    def kept(sources: Sources) -> bool:
        return not (
            lost_units & set(sources.memunit_ids) or lost_messages & set(sources.message_ids)
        )

    return (
        [u for u in units if u[0].id not in lost_units],
        [m for m in memories if kept(m[2])],
        [m for m in restated if kept(m[2])],
    )


async def _link_units(tx: AsyncManagedTransaction, links: list[dict[str, str]]) -> None:
    if not links:
        return
    rows = await fetch(tx, LINK_UNIT_MESSAGES, {"links": links})
    detail = f"one of {len(links)} message"
    require_linked(int(rows[0]["linked"]), len(links), "source", detail)


def _unit_row(unit: MemUnit, indexed: IndexedText) -> dict[str, Any]:
    return {
        "props": memunit_props(unit),
        "embedding": float32(indexed.embedding),
        "search_text": indexed.search_text,
        "user_key": memunit_user_key(unit.user_ids),
    }
