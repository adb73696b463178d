"""Building turn memories for a session (the ``turn`` granularity), idempotently."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from hippograph import text
from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.entities import message_mentions
from hippograph.extraction.relative_time import resolve_relative_times
from hippograph.ids import IdKind, derived_id
from hippograph.models import (
    IndexedText,
    Memory,
    MemoryCategory,
    MemoryKind,
    MemorySource,
    Message,
    Sources,
)
from hippograph.pagination import SeqCursor
from hippograph.ports import Embedder
from hippograph.querytime import dated
from hippograph.services.memory_store import MemoryStore
from hippograph.services.messages import MessageStore
from hippograph.services.users import UserService
from hippograph.turns import CONTEXT_WEIGHT, blend, turn_texts

_PAGE = 500


def turn_memory_id(message_id: str) -> str:
    """The id of a message's turn memory: rebuilding finds, not duplicates, it."""
    return derived_id(IdKind.MEMORY, "turn", message_id)


@dataclass(eq=False)
class TurnMemoryService:
    """One memory per message of a session, derived from it."""

    _messages: MessageStore
    _memories: MemoryStore
    _users: UserService
    _embedder: Embedder
    _clock: Clock
    _context_weight: float = CONTEXT_WEIGHT
    # Whether turn memories get the entities their message mentions.
    _entities: bool = True

    async def build(self, principal: Principal, session_id: str) -> int:
        """Create the turn memories a session lacks; returns how many were created."""
        session = await self._users.require_session(principal, session_id, "sessionId")
        messages: list[Message] = []
        cursor: SeqCursor | None = None
        while True:
            pages = await self._messages.messages_of_sessions(
                [session.id], _PAGE, cursor, principal.scope
            )
            page = pages[session.id]
            messages.extend(page.items)
            if not page.has_next or not page.items:
                break
            cursor = SeqCursor(page.items[-1].seq)
        return await self._create(messages)

    async def _create(self, messages: Sequence[Message]) -> int:
        texts = turn_texts(messages)
        existing = await self._memories.get_memories([turn_memory_id(m.id) for m in messages])
        todo = [
            (m, t)
            for m, t in zip(messages, texts, strict=True)
            if turn_memory_id(m.id) not in existing
        ]
        if not todo:
            return 0
        learned_at = self._clock()
        own = await self._embedder.embed([t.content for _, t in todo])
        # the pair is embedded only when some of it goes into the vector
        context = (
            await self._embedder.embed([t.context for _, t in todo])
            if self._context_weight > 0
            else own
        )
        items = [
            (
                dated(
                    Memory(
                        id=turn_memory_id(message.id),
                        user_id=message.user_id,
                        kind=MemoryKind.EPISODIC,
                        content=texts_.content,
                        importance=0.5,
                        created_at=message.ts,
                        # retention counts from when it was learned (see assemble._memory)
                        last_accessed_at=max(learned_at, message.ts),
                        category=MemoryCategory.EPISODE,
                        source=MemorySource.EXTRACTION,
                        session_id=message.session_id,
                        seq=message.seq,
                    ),
                    # on the speaker's clock, as its words are resolved below
                    said=message.local_ts,
                ),
                IndexedText(
                    embedding=blend(a, b, self._context_weight),
                    # "yesterday" is indexed with the date it meant, so a
                    # question naming that date finds it by its words too
                    search_text=text.search_text(
                        resolve_relative_times(texts_.context, message.local_ts)
                    ),
                ),
                Sources(message_ids=(message.id,)),
            )
            for (message, texts_), a, b in zip(todo, own, context, strict=True)
        ]
        speakers = tuple(dict.fromkeys(m.speaker for m in messages))
        created = 0
        for start in range(0, len(items), _PAGE):
            page = todo[start : start + _PAGE]
            mentions = [message_mentions(m, speakers) for m, _ in page] if self._entities else []
            # A turn memory mentions what its message mentions.
            mentions += [
                replace(found, label="Memory", node_id=turn_memory_id(found.node_id))
                for found in list(mentions)
            ]
            created += await self._memories.add_many(items[start : start + _PAGE], mentions)
        return created
