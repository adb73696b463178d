"""Raw messages: appended idempotently, read in conversation order."""

from __future__ import annotations

from collections.abc import Sequence

from neo4j import AsyncManagedTransaction, Record

from graph.cypher import VISIBLE_N, cypher
from graph.driver import GraphDriver, fetch
from graph.records import MESSAGE_MAP, grouped, message_from, message_props, page
from hippograph.errors import Conflict
from hippograph.models import AddedMessages, Message, Page
from hippograph.pagination import SeqCursor, encode_seq_cursor

# Sequence numbers come from a counter on the session. The first SET takes the
# session's write lock before anything is read (Neo4j would otherwise let two
# appends read the same counter; ArcadeDB retries the loser of the conflict),
# so appends to one session are serialised on both servers. A message whose id
# exists is left as it is (first write wins): that is what makes a replay
# create nothing (a client id reused for another message is refused after it,
# in the same transaction: ``_require_same``). Only fresh messages reach the
# edge, so it is a CREATE: a MERGE would scan the session's HAS_MESSAGE edges
# for every message (on ArcadeDB appends to a session with 90,000 messages
# slowed to a crawl).
APPEND_MESSAGES = cypher(
    "messages.APPEND_MESSAGES",
    "MATCH (s:Session {id: $session_id}) "
    "SET s.last_seq = coalesce(s.last_seq, 0) "
    "WITH s "
    "UNWIND $rows AS row "
    "OPTIONAL MATCH (existing:Message {id: row.id}) "
    "WITH s, collect(CASE WHEN existing IS NULL THEN row END) AS fresh "
    "WITH s, fresh, s.last_seq AS base "
    "SET s.last_seq = base + size(fresh) "
    "WITH s, fresh, base "
    "UNWIND range(0, size(fresh) - 1) AS i "
    "WITH s, base + i + 1 AS seq, fresh[i] AS row "
    "MERGE (m:Message {id: row.id}) "
    "ON CREATE SET m += row, m.seq = seq "
    "CREATE (s)-[:HAS_MESSAGE]->(m) "
    "RETURN m.id AS id",
)
GET_MESSAGES = cypher(
    "messages.GET_MESSAGES",
    "UNWIND $ids AS id MATCH (m:Message {id: id}) RETURN m " + MESSAGE_MAP + " AS props",
)
MESSAGES_OF_SESSIONS = cypher(
    "messages.MESSAGES_OF_SESSIONS",
    "UNWIND $session_ids AS sid "
    "CALL (sid) { "
    "MATCH (n:Message {session_id: sid}) "
    "WHERE (" + VISIBLE_N + ") AND ($after_seq IS NULL OR n.seq > $after_seq) "
    "RETURN n ORDER BY n.seq ASC LIMIT $limit } "
    "RETURN sid, n " + MESSAGE_MAP + " AS props",
)
MESSAGES_OF_MEMUNITS = cypher(
    "messages.MESSAGES_OF_MEMUNITS",
    "UNWIND $ids AS uid "
    "MATCH (:MemUnit {id: uid})-[:DERIVED_FROM]->(n:Message) "
    "WHERE " + VISIBLE_N + " "
    "RETURN uid, n " + MESSAGE_MAP + " AS props ORDER BY n.seq ASC",
)


def _require_same(stored: Message, sent: Message) -> None:
    """``Conflict`` if ``sent`` reuses the client id of ``stored`` for another message.

    A message with a client id has that id's id, whatever it says, so its
    replay can differ from what is stored; one without has an id derived from
    its speaker, time and content, so it cannot. The time is not compared: a
    message sent without one gets the server's clock, which a retry reads anew.
    """
    if sent.client_id is None:
        return
    differs = [
        name
        for name, old, new in (
            ("speaker", stored.speaker, sent.speaker),
            ("role", stored.role, sent.role),
            ("content", stored.content, sent.content),
        )
        if old != new
    ]
    if differs:
        raise Conflict(
            f"clientId {sent.client_id!r} already names message {stored.id} with another "
            f"{' and '.join(differs)}; use a new clientId for a new message"
        )


class MessageGraph:
    """Messages in the graph."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def append(self, session_id: str, messages: Sequence[Message]) -> AddedMessages:
        """Append ``messages`` to a session; those whose id exists are kept as they are.

        Returns every message as stored (with its sequence number) in input
        order, and the ids that this call created. ``Conflict``, with nothing
        written, when a client id names a stored message that says something
        else (another speaker, role or content).
        """
        rows = []
        for message in messages:
            props = message_props(message)
            del props["seq"]
            rows.append(props)
        ids = [m.id for m in messages]

        async def work(tx: AsyncManagedTransaction) -> AddedMessages:
            created = await fetch(tx, APPEND_MESSAGES, {"session_id": session_id, "rows": rows})
            stored = await fetch(tx, GET_MESSAGES, {"ids": ids})
            by_id = {row["props"]["id"]: message_from(row["props"]) for row in stored}
            # Checked after the append, under the session's lock: a send that
            # raced this one has committed by now, and raising rolls back
            # whatever this call wrote (all or nothing).
            for message in messages:
                if message.id in by_id:
                    _require_same(by_id[message.id], message)
            return AddedMessages(
                messages=tuple(by_id[i] for i in dict.fromkeys(ids) if i in by_id),
                created_ids=frozenset(row["id"] for row in created),
            )

        return await self._graph.write(work, merge_only=True)

    async def get_messages(self, ids: Sequence[str]) -> dict[str, Message]:
        """The messages among ``ids`` that exist, by id."""
        rows = await self._graph.query(GET_MESSAGES, {"ids": list(ids)})
        return {row["props"]["id"]: message_from(row["props"]) for row in rows}

    async def messages_of_sessions(
        self,
        session_ids: Sequence[str],
        first: int,
        after: SeqCursor | None,
        scope: list[str] | None,
    ) -> dict[str, Page[Message]]:
        """A page of each session's messages in conversation order."""
        params = {
            "session_ids": list(session_ids),
            "limit": first + 1,
            "after_seq": after.seq if after else None,
            "scope": scope,
        }
        rows = await self._graph.query(MESSAGES_OF_SESSIONS, params)
        found = grouped(rows, session_ids, "sid", _message)
        return {sid: page(items, first, _seq_cursor) for sid, items in found.items()}

    async def messages_of_memunits(
        self, memunit_ids: Sequence[str], scope: list[str] | None
    ) -> dict[str, list[Message]]:
        """The messages each MemUnit was derived from, in conversation order."""
        params = {"ids": list(memunit_ids), "scope": scope}
        rows = await self._graph.query(MESSAGES_OF_MEMUNITS, params)
        return grouped(rows, memunit_ids, "uid", _message)


def _message(row: Record) -> Message:
    return message_from(row["props"])


def _seq_cursor(message: Message) -> str:
    return encode_seq_cursor(message.seq)
