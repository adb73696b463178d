"""Memories: add with provenance, edit, correct (supersede), delete, list."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hippograph import text
from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.entities import written_mentions
from hippograph.errors import Conflict, InvalidInput, NotFound
from hippograph.events import NO_EVENTS, Announcer
from hippograph.ids import IdKind, derived_id, kind_of, new_id, require_client_id
from hippograph.models import (
    DEFAULT_CATEGORY,
    IndexedText,
    Memory,
    MemoryCategory,
    MemoryFilter,
    MemoryKind,
    MemorySource,
    MemUnit,
    Mentions,
    Message,
    Page,
    ProvenanceNode,
    Sources,
)
from hippograph.pagination import decode_time_cursor
from hippograph.ports import Embedder
from hippograph.querytime import dated
from hippograph.services.memory_store import MemoryStore, MemUnitStore
from hippograph.services.messages import MessageStore
from hippograph.services.users import UserService
from hippograph.services.visible import require_visible
from hippograph.settings import LimitSettings
from hippograph.validation import (
    require_count,
    require_filter,
    require_fraction,
    require_period,
    require_text,
)
from hippograph.versions import Revision, edited_fields, next_version

_DOMAIN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_MAX_SOURCES = 100
# A correction written while others edit the same memory in place is built
# again from the version as it is now, this many times at the most.
_VERSION_TRIES = 3


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A memory as a client asks for it."""

    user_id: str
    content: str
    kind: MemoryKind = MemoryKind.SEMANTIC
    importance: float = 0.5
    category: MemoryCategory | None = None
    domain: str | None = None
    session_id: str | None = None
    derived_from: tuple[str, ...] = ()
    source: MemorySource = MemorySource.USER
    verified: bool = False
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    client_id: str | None = None  # makes a retry find, not duplicate, the memory


def client_memory_id(user_id: str, client_id: str) -> str:
    """The id of the memory a client named ``client_id`` for this user."""
    return derived_id(IdKind.MEMORY, user_id, "client", client_id)


def require_same_content(existing: Memory, content: str, client_id: str) -> Memory:
    """``existing`` if a replay of ``client_id`` asks for what it holds; else ``Conflict``."""
    if (existing.original_content or existing.content) != content:
        raise Conflict(
            f"clientId {client_id!r} already names memory {existing.id} with other content; "
            "use a new clientId for a new memory"
        )
    return existing


@dataclass(frozen=True, slots=True)
class MemoryChanges:
    """An edit; None leaves a field as it is. New content makes a new version."""

    content: str | None = None
    importance: float | None = None
    category: MemoryCategory | None = None
    domain: str | None = None
    verified: bool | None = None


def _check_domain(domain: str | None) -> str | None:
    if domain is not None and not _DOMAIN.fullmatch(domain):
        raise InvalidInput(
            "domain must be 1-64 characters of a-z, 0-9 and _, starting with a letter", "domain"
        )
    return domain


def _position(session_id: str | None, messages: Sequence[Message]) -> tuple[str | None, int | None]:
    """Where in a conversation a memory sits: the session and first message it came from.

    Search lets a memory next to a relevant one share some of its relevance,
    so a memory derived from messages records their session and position.
    """
    sessions = {m.session_id for m in messages}
    if session_id is None and len(sessions) == 1:
        session_id = next(iter(sessions))
    seqs = [m.seq for m in messages if m.session_id == session_id]
    return session_id, (min(seqs) if seqs else None)


@dataclass(eq=False)
class MemoryService:
    """Memory use cases for a principal."""

    _memories: MemoryStore
    _messages: MessageStore
    _memunits: MemUnitStore
    _users: UserService
    _embedder: Embedder
    _clock: Clock
    _limits: LimitSettings
    _events: Announcer = NO_EVENTS
    # Whether memories written here get entity mentions (memorize's setting).
    _entities: bool = False

    def _mentions(self, memory: Memory, user_name: str) -> list[Mentions]:
        return written_mentions([memory], user_name) if self._entities else []

    async def index(self, content: str) -> IndexedText:
        """The vector and search tokens of ``content``."""
        [vector] = await self._embedder.embed([content])
        return IndexedText(embedding=vector, search_text=text.search_text(content))

    async def add_memory(self, principal: Principal, new: NewMemory) -> Memory:
        """Store a memory of a visible user, with DERIVED_FROM edges to its sources."""
        user = await self._users.require_user(principal, new.user_id)
        content = require_text(new.content, "content", self._limits.max_content_length)
        require_fraction(new.importance, "importance")
        if new.kind is MemoryKind.REFLECTION:
            raise InvalidInput(
                "reflections are made by the reflect job, not added directly", "kind"
            )
        if new.session_id is not None:
            session = await self._users.require_session(principal, new.session_id, "sessionId")
            if session.user_id != user.id:
                raise NotFound("session", new.session_id)
        require_period(new.valid_from, new.valid_to, "validFrom", "validTo")
        sources, source_messages = await self._resolve_sources(principal, user.id, new.derived_from)
        session_id, seq = _position(new.session_id, source_messages)
        now = self._clock()
        memory_id = new_id(IdKind.MEMORY, now)
        if new.client_id is not None:
            require_client_id(new.client_id, "clientId")
            memory_id = client_memory_id(user.id, new.client_id)
            if (replayed := await self._replayed(memory_id, content, new.client_id)) is not None:
                return replayed
        memory = dated(
            Memory(
                id=memory_id,
                user_id=user.id,
                kind=new.kind,
                content=content,
                importance=new.importance,
                created_at=now,
                last_accessed_at=now,
                category=new.category or DEFAULT_CATEGORY[new.kind],
                source=new.source,
                verified=new.verified,
                valid_from=new.valid_from,
                valid_to=new.valid_to,
                domain=_check_domain(new.domain),
                session_id=session_id,
                seq=seq,
            )
        )
        try:
            await self._memories.add(
                memory, await self.index(content), sources, self._mentions(memory, user.name)
            )
        except Conflict:
            # Two sends of one client id raced: the other one wrote it.
            if new.client_id is None:
                raise
            replayed = await self._replayed(memory_id, content, new.client_id)
            if replayed is None:
                raise
            return replayed
        await self._events.memories_added([memory])
        return memory

    async def _replayed(self, memory_id: str, content: str, client_id: str) -> Memory | None:
        """The memory a client id already made, if it did (with the same content)."""
        existing = (await self._memories.get_memories([memory_id])).get(memory_id)
        return None if existing is None else require_same_content(existing, content, client_id)

    async def _resolve_sources(
        self, principal: Principal, user_id: str, ids: Sequence[str]
    ) -> tuple[Sources, list[Message]]:
        """Check every source exists and belongs to ``user_id``; group them by label."""
        require_count(len(ids), "derivedFrom", 0, _MAX_SOURCES)
        by_kind: dict[IdKind, list[str]] = {
            IdKind.MESSAGE: [],
            IdKind.MEMUNIT: [],
            IdKind.MEMORY: [],
        }
        for index, source_id in enumerate(ids):
            kind = kind_of(source_id)
            if kind not in by_kind:
                raise InvalidInput(
                    "derivedFrom takes message, MemUnit or memory ids", f"derivedFrom[{index}]"
                )
            by_kind[kind].append(source_id)
        messages = await self._messages.get_messages(by_kind[IdKind.MESSAGE])
        units = await self._memunits.get_memunits(by_kind[IdKind.MEMUNIT], principal.scope)
        memories = await self._memories.get_memories(by_kind[IdKind.MEMORY])
        for source_id in by_kind[IdKind.MESSAGE]:
            found = messages.get(source_id)
            if found is None or found.user_id != user_id:
                raise NotFound("source", source_id)
        for source_id in by_kind[IdKind.MEMUNIT]:
            unit = units.get(source_id)
            if unit is None or user_id not in unit.user_ids:
                raise NotFound("source", source_id)
        for source_id in by_kind[IdKind.MEMORY]:
            memory = memories.get(source_id)
            if memory is None or memory.user_id != user_id or memory.deleted_at is not None:
                raise NotFound("source", source_id)
        sources = Sources(
            message_ids=tuple(by_kind[IdKind.MESSAGE]),
            memunit_ids=tuple(by_kind[IdKind.MEMUNIT]),
            memory_ids=tuple(by_kind[IdKind.MEMORY]),
        )
        return sources, [messages[i] for i in by_kind[IdKind.MESSAGE]]

    async def get_memories(self, principal: Principal, ids: Sequence[str]) -> dict[str, Memory]:
        """The visible memories among ``ids``."""
        wanted = [i for i in ids if kind_of(i) is IdKind.MEMORY]
        found = await self._memories.get_memories(wanted) if wanted else {}
        return {i: m for i, m in found.items() if principal.can_access(m.user_id)}

    async def get_memunits(self, principal: Principal, ids: Sequence[str]) -> dict[str, MemUnit]:
        """The visible MemUnits among ``ids``."""
        wanted = [i for i in ids if kind_of(i) is IdKind.MEMUNIT]
        return await self._memunits.get_memunits(wanted, principal.scope) if wanted else {}

    async def require_memory(self, principal: Principal, memory_id: str, field: str) -> Memory:
        """A visible memory, or ``NotFound``."""
        return await require_visible(self.get_memories, principal, IdKind.MEMORY, memory_id, field)

    async def list_memories(
        self,
        principal: Principal,
        user_id: str,
        memory_filter: MemoryFilter,
        first: int,
        after: str | None,
    ) -> Page[Memory]:
        """A page of a visible user's memories, newest first."""
        require_count(first, "first", 1, self._limits.max_page_size)
        require_filter(memory_filter, "filter")
        cursor = decode_time_cursor(after)
        user = await self._users.require_user(principal, user_id)
        return await self._memories.list_memories(
            user.id, memory_filter, first, cursor, self._clock()
        )

    async def update_memory(
        self, principal: Principal, memory_id: str, changes: MemoryChanges
    ) -> Memory:
        """Edit a current memory; new content supersedes it with a new version."""
        old = await self.require_memory(principal, memory_id, "id")
        now = self._clock()
        _require_current(old, now)
        in_place: dict[str, Any] = {}
        if changes.importance is not None:
            in_place["importance"] = require_fraction(changes.importance, "importance")
        if changes.category is not None:
            in_place["category"] = changes.category.value
        if changes.domain is not None:
            in_place["domain"] = _check_domain(changes.domain)
        if changes.verified is not None:
            in_place["verified"] = changes.verified
        content = None
        if changes.content is not None:
            content = require_text(changes.content, "content", self._limits.max_content_length)
        if content is None or content == old.content:
            if not in_place:
                return old
            updated = await self._memories.update(old.id, in_place, now)
            if updated is None:
                # deleted or superseded since it was read above
                raise InvalidInput("only a current memory can be edited", "id")
            return updated
        revision = Revision(
            content=content,
            importance=in_place.get("importance"),
            category=changes.category,
            domain=in_place.get("domain"),
            verified=changes.verified,
        )
        indexed = await self.index(content)
        owner = await self._users.require_user(principal, old.user_id) if self._entities else None
        for _ in range(_VERSION_TRIES):
            successor = next_version(old, revision, new_id(IdKind.MEMORY, now), now)
            mentions = self._mentions(successor, owner.name) if owner else []
            if await self._memories.supersede(old, successor, indexed, Sources(), now, mentions):
                await self._events.memories_added([successor])
                return successor
            # Superseded or deleted since it was read, or edited in place: the
            # new version copies what an edit changes, so it is built again
            # from the version as it is now, while that is still current.
            fresh = await self.require_memory(principal, memory_id, "id")
            _require_current(fresh, now)
            if edited_fields(fresh) == edited_fields(old):
                # not an edit: superseded at a later instant than ``now``
                raise InvalidInput("only a current memory can be edited", "id")
            old = fresh
        raise Conflict(f"memory {memory_id!r} kept being edited while this edit was written")

    async def delete_memory(self, principal: Principal, memory_id: str, hard: bool) -> str:
        """Delete a memory: soft (marked, kept for provenance) or hard (gone, with its edges)."""
        memory = await self.require_memory(principal, memory_id, "id")
        if hard:
            deleted = await self._memories.hard_delete(memory.id, self._clock())
        else:
            deleted = await self._memories.soft_delete(memory.id, self._clock())
        if not deleted:
            raise NotFound("memory", memory_id)
        return memory.id

    async def summaries(
        self, principal: Principal, memory_ids: Sequence[str], *, by: bool
    ) -> dict[str, list[Memory]]:
        """What each reflection summarises (or, ``by``, which reflections summarise each)."""
        return await self._memories.summaries(memory_ids, principal.scope, by=by)

    async def derived_from(
        self, principal: Principal, memory_ids: Sequence[str]
    ) -> dict[str, list[ProvenanceNode]]:
        """What each memory was derived from, scoped to ``principal``."""
        return await self._memories.derived_from(memory_ids, principal.scope)


def _require_current(memory: Memory, now: datetime) -> None:
    """``InvalidInput`` unless ``memory`` is current (not deleted, expired or superseded)."""
    if memory.deleted_at is not None or (memory.valid_to is not None and memory.valid_to <= now):
        raise InvalidInput("only a current memory can be edited", "id")
