"""The users search has lately read: their record without a read per search.

A search needs its user's record for two things: that the user exists and
the key may see them (else ``NotFound``), and their name, which the vector
side weighs down (``hippograph/query_names.py``). Who may see whom is the
key's, checked here on every search without the graph; the record is read
once per ``ttl_s`` per user. Trusting it for the answer would be wrong only
for a user deleted since, whose memories went with them: such a search
finds nothing, and a search from the cache that finds nothing asks the
graph again (``confirm``), so the answer is the graph's either way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from hippograph.auth import Principal
from hippograph.errors import NotFound
from hippograph.ids import require_user_id
from hippograph.models import User
from hippograph.services.users import UserService


@dataclass(eq=False)
class KnownUsers:
    """Users by id, each read at most once per ``ttl_s``."""

    _users: UserService
    _ttl_s: float
    _seen: dict[str, tuple[float, User]] = field(default_factory=dict)

    async def get(self, principal: Principal, user_id: str) -> tuple[User, bool]:
        """The user ``principal`` may see (``NotFound`` otherwise), and whether it was
        read from the graph for this call rather than remembered."""
        require_user_id(user_id, "userId")
        if not principal.can_access(user_id):
            raise NotFound("user", user_id)
        seen = self._seen.get(user_id)
        if seen is not None and time.monotonic() - seen[0] < self._ttl_s:
            return seen[1], False
        return await self.confirm(principal, user_id), True

    async def confirm(self, principal: Principal, user_id: str) -> User:
        """The user as the graph has them now (``NotFound`` for one deleted since)."""
        self._seen.pop(user_id, None)
        user = await self._users.require_user(principal, user_id)
        self._seen[user_id] = (time.monotonic(), user)
        return user
