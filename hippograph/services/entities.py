"""Entities: the people, places, organisations, things and dates a user's memories mention.

Reads only: entities are written by memorize (graph/ingest.py) and removed
with what mentions them. Every read checks the principal: an entity of a user
the key may not see is the same ``NotFound``/absence as one that does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from hippograph.auth import Principal
from hippograph.ids import IdKind, require_id
from hippograph.models import Edge, Entity, Memory, Page
from hippograph.pagination import (
    decode_id_cursor,
    decode_time_cursor,
    encode_id_cursor,
    encode_time_cursor,
)
from hippograph.services.users import UserService
from hippograph.settings import LimitSettings
from hippograph.validation import require_count


class EntityStore(Protocol):
    """Entity reads (graph/entities.py)."""

    async def entities(self, user_id: str, first: int, after: str | None) -> Page[Entity]: ...
    async def get_entities(
        self, ids: Sequence[str], scope: list[str] | None
    ) -> dict[str, Entity]: ...
    async def mentioned_in(
        self, entity_id: str, first: int, after: tuple[datetime, str] | None
    ) -> Page[Memory]: ...
    async def mentions_of(
        self, ids: Sequence[str], scope: list[str] | None
    ) -> tuple[list[Entity], list[Edge]]: ...


@dataclass(eq=False)
class EntityService:
    """Lists a user's entities and what mentions each."""

    _store: EntityStore
    _users: UserService
    _limits: LimitSettings

    async def list_entities(
        self, principal: Principal, user_id: str, first: int, after: str | None
    ) -> Page[Entity]:
        """A page of a visible user's entities, by id."""
        require_count(first, "first", 1, self._limits.max_page_size)
        cursor = decode_id_cursor(after)
        if cursor:
            require_id(cursor, IdKind.ENTITY, "after")
        user = await self._users.require_user(principal, user_id)
        page = await self._store.entities(user.id, first, cursor)
        end = encode_id_cursor(page.items[-1].id) if page.items else None
        return replace(page, end_cursor=end)

    async def get_entity(self, principal: Principal, entity_id: str) -> Entity | None:
        """The entity, or None if it does not exist or is not visible."""
        require_id(entity_id, IdKind.ENTITY, "id")
        found = await self._store.get_entities([entity_id], principal.scope)
        return found.get(entity_id)

    async def mentioned_in(
        self, principal: Principal, entity: Entity, first: int, after: str | None
    ) -> Page[Memory]:
        """A page of the memories that mention ``entity``, newest first."""
        require_count(first, "first", 1, self._limits.max_page_size)
        cursor = decode_time_cursor(after)
        if not principal.can_access(entity.user_id):
            return Page(items=(), has_next=False)
        page = await self._store.mentioned_in(
            entity.id, first, (cursor.at, cursor.id) if cursor else None
        )
        last = page.items[-1] if page.items else None
        end = encode_time_cursor(last.created_at, last.id) if last else None
        return replace(page, end_cursor=end)

    async def mentions_of(
        self, principal: Principal, node_ids: Sequence[str]
    ) -> tuple[list[Entity], list[Edge]]:
        """The entities the memories and messages among ``node_ids`` mention (a provenance
        subgraph's), with the MENTIONS edges; only what the principal may see."""
        return await self._store.mentions_of(list(node_ids), principal.scope)
