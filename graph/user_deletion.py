"""A user deleted with everything derived only from them, in parts.

A user's data is their sessions (with the messages in them) and their
memories. Each session goes as ``deleteWithProvenance`` deletes one (its own
transaction, :class:`graph.cascade.CascadeGraph`); the memories left, those
no session led to (added directly, reflections), go here in pages, each page
with what derives only from it; the user node goes last. A run cut short
leaves the user with less, never a half-deleted node, and running it again
finishes the job.
"""

from __future__ import annotations

from collections.abc import Sequence

from neo4j import AsyncManagedTransaction

from graph.cascade import delete_planned, memory_closure
from graph.cypher import counted, cypher
from graph.driver import GraphDriver, fetch
from graph.users import SESSION_WRITE
from hippograph.cascade import DeletionReport, deletion_report, too_large
from hippograph.errors import Conflict

USER_SESSIONS = cypher(
    "user_deletion.USER_SESSIONS",
    "MATCH (s:Session {user_id: $user_id}) RETURN s.id AS id ORDER BY s.id",
)
USER_MEMORIES = cypher(
    "user_deletion.USER_MEMORIES",
    "MATCH (m:Memory {user_id: $user_id}) WHERE m.id > $after "
    "RETURN m.id AS id ORDER BY m.id LIMIT $limit",
)
DELETE_USER = cypher(
    "user_deletion.DELETE_USER",
    "MATCH (u:User {id: $user_id}) DETACH DELETE u RETURN count(*) AS deleted",
)
# The jobs run for the user: their parameters hold a memorize call's history
# (the user's own words) and its session. A group's job goes too, as the
# conversation does; a job still running finds its record gone and stops.
DELETE_JOBS = cypher(
    "user_deletion.DELETE_JOBS",
    "MATCH (j:Job) WHERE $user_id IN j.user_ids DETACH DELETE j RETURN count(*) AS deleted",
)
# The user is changed before what is left is read, as a session's creation
# (graph/users.py: SESSION_WRITE) and a memory's (graph/memories.py:
# CREATE_MEMORIES) change it.
CLAIM_USER = cypher(
    "user_deletion.CLAIM_USER",
    "MATCH (u:User {id: $user_id}) " + SESSION_WRITE + "RETURN count(u) AS claimed",
)
# The keys limited to the user lose them: a new user of the same id is
# someone else, and a key that was the old one's alone would read their
# memories (or create them again). Such a key is revoked; a key of several
# users keeps the others. Each key is changed before its users are read: two
# users of one key deleted at once would otherwise each write back a list
# that still held the other.
KEYS_OF_USER = cypher(
    "user_deletion.KEYS_OF_USER",
    "MATCH (k:ApiKey) WHERE $user_id IN k.user_ids "
    + counted("k", "user_writes")
    + "WITH k RETURN k.id AS id, k.user_ids AS user_ids",
)
SET_KEY_USERS = cypher(
    "user_deletion.SET_KEY_USERS",
    "UNWIND $keys AS key MATCH (k:ApiKey {id: key.id}) "
    "SET k.user_ids = key.user_ids, k.revoked = k.revoked OR key.revoked "
    "RETURN count(k) AS n",
)
# What a write that raced the deletion left of the user's (one of each is enough).
SESSION_LEFT = cypher(
    "user_deletion.SESSION_LEFT",
    "MATCH (s:Session {user_id: $user_id}) RETURN s.id AS id LIMIT 1",
)
MEMORY_LEFT = cypher(
    "user_deletion.MEMORY_LEFT",
    "MATCH (m:Memory {user_id: $user_id}) RETURN m.id AS id LIMIT 1",
)


class UserDeletionGraph:
    """The reads and writes of deleting one user."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def sessions(self, user_id: str) -> list[str]:
        """The ids of the sessions ``user_id`` owns."""

        async def work(tx: AsyncManagedTransaction) -> list[str]:
            return [r["id"] for r in await fetch(tx, USER_SESSIONS, {"user_id": user_id})]

        return await self._graph.read(work)

    async def memories(self, user_id: str, after: str, limit: int) -> list[str]:
        """A page of ``user_id``'s memory ids after ``after``, in id order."""

        async def work(tx: AsyncManagedTransaction) -> list[str]:
            params = {"user_id": user_id, "after": after, "limit": limit}
            return [r["id"] for r in await fetch(tx, USER_MEMORIES, params)]

        return await self._graph.read(work)

    async def memory_report(
        self, user_id: str, ids: Sequence[str], scope: list[str] | None, limit: int
    ) -> DeletionReport:
        """What deleting these memories of ``user_id`` would remove with them."""

        async def work(tx: AsyncManagedTransaction) -> DeletionReport:
            return await _memory_report(tx, user_id, ids, scope, limit)

        return await self._graph.read(work)

    async def delete_memories(
        self, user_id: str, ids: Sequence[str], scope: list[str] | None, limit: int
    ) -> DeletionReport:
        """Delete these memories of ``user_id`` and what derives only from them, in one
        transaction; what was deleted."""

        async def work(tx: AsyncManagedTransaction) -> DeletionReport:
            report = await _memory_report(tx, user_id, ids, scope, limit, claim=True)
            await delete_planned(tx, report)
            return report

        return await self._graph.write(work)

    async def delete_user(self, user_id: str) -> bool:
        """Delete the user node itself and the jobs run for them, once none of their
        sessions and memories is left, and take the user out of the keys limited
        to them (revoking a key of theirs alone);
        False if it was gone. ``Conflict`` (nothing deleted) if some are: written while
        their data was being deleted, they would outlive the user, and a new user of
        the same id would find them."""

        async def work(tx: AsyncManagedTransaction) -> bool:
            params = {"user_id": user_id}
            await fetch(tx, CLAIM_USER, params)
            for query in (SESSION_LEFT, MEMORY_LEFT):
                if left := await fetch(tx, query, params):
                    raise Conflict(f"{left[0]['id']} of user {user_id!r} was written meanwhile")
            rows = await fetch(tx, DELETE_USER, params)
            await fetch(tx, DELETE_JOBS, params)
            deleted = bool(rows and int(rows[0]["deleted"]))
            if deleted:
                await _release_keys(tx, user_id)
            return deleted

        return await self._graph.write(work)


async def _memory_report(
    tx: AsyncManagedTransaction,
    user_id: str,
    ids: Sequence[str],
    scope: list[str] | None,
    limit: int,
    *,
    claim: bool = False,
) -> DeletionReport:
    closure = await memory_closure(tx, ids, scope, limit, claim=claim)
    if not closure.complete:
        raise too_large(user_id, limit)
    return deletion_report(user_id, closure)


async def _release_keys(tx: AsyncManagedTransaction, user_id: str) -> None:
    """Take ``user_id`` out of every key limited to it; revoke the keys left with none."""
    keys = []
    for row in await fetch(tx, KEYS_OF_USER, {"user_id": user_id}):
        rest = [u for u in row["user_ids"] if u != user_id]
        keys.append({"id": row["id"], "user_ids": rest, "revoked": not rest})
    if keys:
        await fetch(tx, SET_KEY_USERS, {"keys": keys})
