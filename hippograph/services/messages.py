"""Appending raw messages to a session, idempotently."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol

from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.errors import InvalidInput
from hippograph.ids import IdKind, derived_id, require_client_id
from hippograph.models import AddedMessages, Message, Page, Role
from hippograph.pagination import SeqCursor, decode_seq_cursor
from hippograph.services.users import UserService
from hippograph.settings import LimitSettings
from hippograph.validation import require_aware, require_count, require_text


class MessageStore(Protocol):
    """Raw messages."""

    async def append(self, session_id: str, messages: Sequence[Message]) -> AddedMessages: ...
    async def get_messages(self, ids: Sequence[str]) -> dict[str, Message]: ...
    async def messages_of_sessions(
        self,
        session_ids: Sequence[str],
        first: int,
        after: SeqCursor | None,
        scope: list[str] | None,
    ) -> dict[str, Page[Message]]: ...
    async def messages_of_memunits(
        self, memunit_ids: Sequence[str], scope: list[str] | None
    ) -> dict[str, list[Message]]: ...


_MAX_SPEAKER = 200


@dataclass(frozen=True, slots=True)
class MessageInput:
    """One message as a client sends it."""

    speaker: str
    content: str
    role: Role = Role.USER
    ts: datetime | None = None
    client_id: str | None = None


def message_id(
    session_id: str, item: MessageInput, ts: datetime, repeat: int = 0, *, as_written: bool = False
) -> str:
    """The id a message gets: the same input always gets the same id.

    With a client id, that id decides; without one, the speaker, time and a
    hash of the content do, so a replay of the same message at the same time
    is recognised and creates nothing. The time counts as UTC: one instant
    written with two offsets is one message. ``as_written`` gives the id that
    messages stored before that rule got, from the offset the client wrote.
    ``repeat`` counts the same words said again at the same time within one
    call ("ok", "ok"): a message of its own.
    """
    if item.client_id is not None:
        return derived_id(IdKind.MESSAGE, session_id, "client", item.client_id)
    digest = hashlib.sha256(item.content.encode()).hexdigest()
    again = (f"repeat {repeat}",) if repeat else ()
    when = ts if as_written else ts.astimezone(UTC)
    return derived_id(
        IdKind.MESSAGE, session_id, "content", item.speaker, when.isoformat(), digest, *again
    )


def _own_ids(
    session_id: str, item: MessageInput, ts: datetime, taken: dict[str, int], index: int
) -> tuple[str, str | None]:
    """The id of a call's ``index``-th message, none of the ids ``taken`` by the items
    before it (id -> index, which this one joins): two items are two messages.

    The second id is the one the message had before times counted as UTC,
    where that differs (a time written with an offset other than UTC's).
    """
    new_id = message_id(session_id, item, ts)
    if item.client_id is not None and new_id in taken:
        raise InvalidInput(
            f"messages[{index}].clientId repeats messages[{taken[new_id]}].clientId: "
            "each message of a call needs its own",
            f"messages[{index}].clientId",
        )
    repeat = 0
    while new_id in taken:
        repeat += 1
        new_id = message_id(session_id, item, ts, repeat)
    taken[new_id] = index
    earlier = message_id(session_id, item, ts, repeat, as_written=True)
    return new_id, (earlier if earlier != new_id else None)


def _minutes_east(ts: datetime) -> int:
    """``ts``'s offset from UTC in minutes (aware times only reach here)."""
    offset = ts.utcoffset()
    return int(offset.total_seconds() // 60) if offset is not None else 0


class MessageService:
    """Appends and reads messages for a principal."""

    def __init__(
        self, store: MessageStore, users: UserService, clock: Clock, limits: LimitSettings
    ) -> None:
        self._store = store
        self._users = users
        self._clock = clock
        self._limits = limits

    def build(
        self,
        session_id: str,
        user_id: str,
        items: Sequence[MessageInput],
        *,
        first: int = 0,
        name: str = "messages",
    ) -> list[Message]:
        """Validated ``Message`` records for ``items`` (sequence numbers come from the store).

        ``first`` is the index the first item's errors name: the items are
        a chunk of a longer list. ``name`` is the list's field (``history``).
        """
        return [message for message, _ in self._build(session_id, user_id, items, first, name)]

    def _build(
        self, session_id: str, user_id: str, items: Sequence[MessageInput], first: int, name: str
    ) -> list[tuple[Message, str | None]]:
        """``build``'s messages, each with the id it had before times counted as UTC."""
        if not items:
            raise InvalidInput(f"{name} must not be empty", name)
        require_count(len(items), name, 1, self._limits.max_messages_per_call)
        now = self._clock()
        built: list[tuple[Message, str | None]] = []
        # id -> the index of the item that has it: two items of one call are
        # two messages, never one written twice.
        taken: dict[str, int] = {}
        for index, item in enumerate(items, start=first):
            field = f"{name}[{index}]"
            speaker = require_text(item.speaker, f"{field}.speaker", _MAX_SPEAKER)
            content = require_text(
                item.content, f"{field}.content", self._limits.max_content_length
            )
            ts = require_aware(item.ts, f"{field}.ts") if item.ts else now
            client_id = (
                require_client_id(item.client_id, f"{field}.clientId") if item.client_id else None
            )
            clean = MessageInput(speaker, content, item.role, ts, client_id)
            new_id, earlier_id = _own_ids(session_id, clean, ts, taken, index)
            message = Message(
                id=new_id,
                session_id=session_id,
                user_id=user_id,
                speaker=speaker,
                role=item.role,
                content=content,
                ts=ts,
                seq=0,
                client_id=client_id,
                utc_offset=_minutes_east(ts) if item.ts else None,
            )
            built.append((message, earlier_id))
        return built

    async def add_messages(
        self, principal: Principal, session_id: str, items: Sequence[MessageInput]
    ) -> AddedMessages:
        """Append ``items`` to a visible session; replays create nothing.

        ``Conflict``, with nothing written, when a client id names a stored
        message with another speaker, role or content (graph/messages.py
        checks it in the append's transaction, where a racing send is seen).
        """
        session = await self._users.require_session(principal, session_id, "sessionId")
        built = self._build(session.id, session.user_id, items, 0, "messages")
        return await self._store.append(session.id, await self._as_stored(built))

    async def _as_stored(self, built: list[tuple[Message, str | None]]) -> list[Message]:
        """The messages, each under the id it was stored with before, if it was.

        A message stored before times counted as UTC has the id of its time
        as the client wrote it; its replay, written the same way, must find
        that message and not make a second.
        """
        earlier = [old for _, old in built if old is not None]
        found = await self._store.get_messages(earlier) if earlier else {}
        return [replace(m, id=old) if old in found else m for m, old in built]

    async def messages_of_sessions(
        self, principal: Principal, session_ids: Sequence[str], first: int, after: str | None
    ) -> dict[str, Page[Message]]:
        """A page of each session's messages (sessions already resolved for ``principal``)."""
        require_count(first, "first", 1, self._limits.max_page_size)
        cursor = decode_seq_cursor(after)
        return await self._store.messages_of_sessions(session_ids, first, cursor, principal.scope)

    async def messages_of_memunits(
        self, principal: Principal, memunit_ids: Sequence[str]
    ) -> dict[str, list[Message]]:
        """The messages each MemUnit came from."""
        return await self._store.messages_of_memunits(memunit_ids, principal.scope)

    async def get_messages(self, principal: Principal, ids: Sequence[str]) -> dict[str, Message]:
        """The visible messages among ``ids``."""
        found = await self._store.get_messages(list(ids))
        return {i: m for i, m in found.items() if principal.can_access(m.user_id)}
