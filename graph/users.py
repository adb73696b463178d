"""Users and their sessions."""

from __future__ import annotations

from collections.abc import Sequence

from graph.cypher import counted, cypher
from graph.driver import GraphDriver
from graph.records import SESSION_MAP, USER_MAP, grouped, page, session_from, user_from
from hippograph.errors import Conflict
from hippograph.models import Page, Session, User
from hippograph.pagination import TimeCursor, encode_id_cursor, encode_time_cursor

CREATE_USER = cypher(
    "users.CREATE_USER",
    "CREATE (n:User {id: $id, name: $name, created_at: $created_at}) RETURN n.id AS id",
)
GET_USERS = cypher(
    "users.GET_USERS",
    "UNWIND $ids AS id MATCH (n:User {id: id}) RETURN n " + USER_MAP + " AS props",
)
# Users by id, after a cursor, within the key's scope (null: every user).
LIST_USERS = cypher(
    "users.LIST_USERS",
    "MATCH (n:User) WHERE n.id > $after AND ($scope IS NULL OR n.id IN $scope) "
    "RETURN n " + USER_MAP + " AS props ORDER BY n.id LIMIT $limit",
)
# A real change to the user by each session's creation, and by the user's
# deletion before it reads that no session is left (graph/user_deletion.py):
# otherwise a session created between that read and the delete (by another
# process) would outlive its user, and a new user of the same id would find it.
SESSION_WRITE = counted("u", "session_writes")
CREATE_SESSION = cypher(
    "users.CREATE_SESSION",
    "MATCH (u:User {id: $user_id}) " + SESSION_WRITE + "CREATE (u)-[:HAS_SESSION]->(s:Session "
    "{id: $id, user_id: $user_id, title: $title, started_at: $started_at}) "
    "RETURN s.id AS id",
)
GET_SESSIONS = cypher(
    "users.GET_SESSIONS",
    "UNWIND $ids AS id MATCH (s:Session {id: id}) RETURN s " + SESSION_MAP + " AS props",
)
SESSIONS_OF_USERS = cypher(
    "users.SESSIONS_OF_USERS",
    "UNWIND $user_ids AS uid "
    "CALL (uid) { "
    "MATCH (s:Session {user_id: uid}) "
    "WHERE $after_ts IS NULL OR s.started_at < $after_ts "
    "OR (s.started_at = $after_ts AND s.id < $after_id) "
    "RETURN s ORDER BY s.started_at DESC, s.id DESC LIMIT $limit } "
    "RETURN uid, s " + SESSION_MAP + " AS props",
)


class UserGraph:
    """Users and sessions in the graph."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def create_user(self, user: User) -> None:
        """Create ``user``; ``Conflict`` if the id is taken."""
        params = {"id": user.id, "name": user.name, "created_at": user.created_at}
        try:
            await self._graph.write_rows(CREATE_USER, params)
        except Conflict as exc:
            raise Conflict(f"user {user.id!r} already exists") from exc

    async def get_users(self, ids: Sequence[str]) -> dict[str, User]:
        """The users among ``ids`` that exist, by id."""
        rows = await self._graph.query(GET_USERS, {"ids": list(ids)})
        return {row["props"]["id"]: user_from(row["props"]) for row in rows}

    async def list_users(self, scope: list[str] | None, after: str, first: int) -> Page[User]:
        """The users after ``after`` by id, among ``scope`` (None: all), ``first`` at most."""
        params = {"scope": scope, "after": after, "limit": first + 1}
        rows = await self._graph.query(LIST_USERS, params)
        users = [user_from(row["props"]) for row in rows]
        return page(users, first, lambda user: encode_id_cursor(user.id))

    async def create_session(self, session: Session) -> bool:
        """Create ``session`` under its user; False if the user does not exist."""
        params = {
            "id": session.id,
            "user_id": session.user_id,
            "title": session.title,
            "started_at": session.started_at,
        }
        return bool(await self._graph.write_rows(CREATE_SESSION, params))

    async def get_sessions(self, ids: Sequence[str]) -> dict[str, Session]:
        """The sessions among ``ids`` that exist, by id."""
        rows = await self._graph.query(GET_SESSIONS, {"ids": list(ids)})
        return {row["props"]["id"]: session_from(row["props"]) for row in rows}

    async def sessions_of_users(
        self, user_ids: Sequence[str], first: int, after: TimeCursor | None
    ) -> dict[str, Page[Session]]:
        """A page of each user's sessions, newest first."""
        params = {
            "user_ids": list(user_ids),
            "limit": first + 1,
            "after_ts": after.at if after else None,
            "after_id": after.id if after else None,
        }
        rows = await self._graph.query(SESSIONS_OF_USERS, params)
        found = grouped(rows, user_ids, "uid", lambda row: session_from(row["props"]))
        return {uid: page(items, first, _time_cursor) for uid, items in found.items()}


def _time_cursor(session: Session) -> str:
    return encode_time_cursor(session.started_at, session.id)
