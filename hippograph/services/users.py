"""Users and sessions: creation and scoped reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.errors import Forbidden, NotFound
from hippograph.ids import IdKind, new_id, require_user_id
from hippograph.models import Page, Session, User
from hippograph.pagination import TimeCursor, decode_id_cursor, decode_time_cursor
from hippograph.services.visible import require_visible
from hippograph.settings import LimitSettings
from hippograph.validation import require_count, require_text


class UserStore(Protocol):
    """Users and sessions."""

    async def create_user(self, user: User) -> None: ...
    async def get_users(self, ids: Sequence[str]) -> dict[str, User]: ...
    async def list_users(self, scope: list[str] | None, after: str, first: int) -> Page[User]: ...
    async def create_session(self, session: Session) -> bool: ...
    async def get_sessions(self, ids: Sequence[str]) -> dict[str, Session]: ...
    async def sessions_of_users(
        self, user_ids: Sequence[str], first: int, after: TimeCursor | None
    ) -> dict[str, Page[Session]]: ...


_MAX_NAME = 200


class UserService:
    """Creates and reads users and sessions for a principal."""

    def __init__(self, store: UserStore, clock: Clock, limits: LimitSettings) -> None:
        self._store = store
        self._clock = clock
        self._limits = limits

    async def create_user(self, principal: Principal, user_id: str, name: str) -> User:
        """Create a user; a limited key may only create users in its own set."""
        require_user_id(user_id, "id")
        name = require_text(name, "name", _MAX_NAME)
        if not principal.can_access(user_id):
            raise Forbidden(f"this API key may not create user {user_id!r}")
        user = User(id=user_id, name=name, created_at=self._clock())
        await self._store.create_user(user)
        return user

    async def get_user(self, principal: Principal, user_id: str) -> User | None:
        """The user, or None if it does not exist or is not visible."""
        return (await self.get_users(principal, [user_id])).get(user_id)

    async def get_users(self, principal: Principal, ids: Sequence[str]) -> dict[str, User]:
        """The visible users among ``ids``."""
        visible = [i for i in ids if principal.can_access(i)]
        return await self._store.get_users(visible) if visible else {}

    async def list_users(self, principal: Principal, first: int, after: str | None) -> Page[User]:
        """A page of the users this key may see, by id (every user for an admin key)."""
        require_count(first, "first", 1, self._limits.max_page_size)
        cursor = decode_id_cursor(after) or ""
        return await self._store.list_users(principal.scope, cursor, first)

    async def require_user(self, principal: Principal, user_id: str) -> User:
        """The user, or ``NotFound`` (also when the principal may not see it)."""
        require_user_id(user_id, "userId")
        user = await self.get_user(principal, user_id)
        if user is None:
            raise NotFound("user", user_id)
        return user

    async def create_session(self, principal: Principal, user_id: str, title: str) -> Session:
        """Start a session for a visible user."""
        title = require_text(title, "title", _MAX_NAME, allow_empty=True)
        user = await self.require_user(principal, user_id)
        now = self._clock()
        session = Session(
            id=new_id(IdKind.SESSION, now), user_id=user.id, title=title, started_at=now
        )
        if not await self._store.create_session(session):
            raise NotFound("user", user_id)
        return session

    async def get_sessions(self, principal: Principal, ids: Sequence[str]) -> dict[str, Session]:
        """The visible sessions among ``ids``."""
        found = await self._store.get_sessions(list(ids))
        return {i: s for i, s in found.items() if principal.can_access(s.user_id)}

    async def require_session(self, principal: Principal, session_id: str, field: str) -> Session:
        """The session, or ``NotFound``."""
        return await require_visible(
            self.get_sessions, principal, IdKind.SESSION, session_id, field
        )

    async def sessions_of_users(
        self, principal: Principal, user_ids: Sequence[str], first: int, after: str | None
    ) -> dict[str, Page[Session]]:
        """A page of sessions of each visible user (empty pages for the others)."""
        require_count(first, "first", 1, self._limits.max_page_size)
        cursor = decode_time_cursor(after)
        visible = [u for u in user_ids if principal.can_access(u)]
        pages = await self._store.sessions_of_users(visible, first, cursor) if visible else {}
        empty: Page[Session] = Page(items=(), has_next=False)
        return {u: pages.get(u, empty) for u in user_ids}
