"""Mapping between graph properties and domain records.

Reads never fetch embeddings: the projections below list what a record needs,
and ``search_text``/``embedding`` are not among them. ArcadeDB returns
datetimes without a zone (they are UTC); Neo4j returns them with one; both
come out of here as aware UTC datetimes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from hippograph.models import (
    LevelChange,
    Memory,
    MemoryCategory,
    MemoryKind,
    MemoryLevel,
    MemorySource,
    MemUnit,
    Message,
    Role,
    Session,
    User,
)

USER_MAP = "{.id, .name, .created_at}"
SESSION_MAP = "{.id, .user_id, .title, .started_at}"
MESSAGE_MAP = "{.id, .session_id, .user_id, .speaker, .role, .content, .ts, .seq, .client_id}"
MEMUNIT_MAP = (
    "{.id, .user_ids, .group_id, .session_id, .summary, .narrative, .subject,"
    " .participants, .keywords, .ts, .source_type}"
)
MEMORY_MAP = (
    "{.id, .user_id, .kind, .content, .original_content, .level, .category, .importance,"
    " .source, .verified, .created_at, .last_accessed_at, .access_count, .valid_from,"
    " .valid_to, .consolidated, .domain, .session_id, .deleted_at, .seq, .topic,"
    " .level_history}"
)

Props = Mapping[str, Any]


def to_utc(value: Any) -> datetime:
    """A driver temporal value (or Python datetime) as an aware UTC datetime."""
    native = value.to_native() if hasattr(value, "to_native") else value
    if not isinstance(native, datetime):
        raise TypeError(f"expected a datetime, got {type(value).__name__}")
    if native.tzinfo is None:
        return native.replace(tzinfo=UTC)
    return native.astimezone(UTC)


def parse_utc(text: str) -> datetime:
    """A datetime as the server's Cypher ``toString`` writes it, as an aware UTC datetime.

    ArcadeDB writes no zone (the value is UTC); Neo4j writes an offset and,
    for a named zone, the name in brackets after it, which the offset makes
    redundant. Digits past the microsecond are dropped.
    """
    return to_utc(datetime.fromisoformat(text.partition("[")[0]))


def to_utc_or_none(value: Any) -> datetime | None:
    """Like :func:`to_utc`, passing None through."""
    return None if value is None else to_utc(value)


def user_from(p: Props) -> User:
    """A ``User`` from its projection."""
    return User(id=p["id"], name=p["name"], created_at=to_utc(p["created_at"]))


def session_from(p: Props) -> Session:
    """A ``Session`` from its projection."""
    return Session(
        id=p["id"], user_id=p["user_id"], title=p["title"], started_at=to_utc(p["started_at"])
    )


def message_from(p: Props) -> Message:
    """A ``Message`` from its projection."""
    return Message(
        id=p["id"],
        session_id=p["session_id"],
        user_id=p["user_id"],
        speaker=p["speaker"],
        role=Role(p["role"]),
        content=p["content"],
        ts=to_utc(p["ts"]),
        seq=int(p["seq"]),
        client_id=p.get("client_id"),
    )


def memunit_from(p: Props) -> MemUnit:
    """A ``MemUnit`` from its projection."""
    return MemUnit(
        id=p["id"],
        user_ids=tuple(p["user_ids"] or ()),
        group_id=p.get("group_id"),
        session_id=p["session_id"],
        summary=p["summary"],
        narrative=p["narrative"],
        subject=p["subject"],
        participants=tuple(p.get("participants") or ()),
        keywords=tuple(p.get("keywords") or ()),
        ts=to_utc(p["ts"]),
        source_type=p.get("source_type") or "conversation",
    )


def memory_from(p: Props) -> Memory:
    """A ``Memory`` from its projection."""
    return Memory(
        id=p["id"],
        user_id=p["user_id"],
        kind=MemoryKind(p["kind"]),
        content=p["content"],
        original_content=p.get("original_content"),
        level=MemoryLevel(p.get("level") or "full"),
        category=MemoryCategory(p.get("category") or "fact"),
        importance=float(p["importance"]),
        source=MemorySource(p.get("source") or "user"),
        verified=bool(p.get("verified")),
        created_at=to_utc(p["created_at"]),
        last_accessed_at=to_utc(p["last_accessed_at"]),
        access_count=int(p.get("access_count") or 0),
        valid_from=to_utc_or_none(p.get("valid_from")),
        valid_to=to_utc_or_none(p.get("valid_to")),
        consolidated=bool(p.get("consolidated")),
        domain=p.get("domain"),
        session_id=p.get("session_id"),
        deleted_at=to_utc_or_none(p.get("deleted_at")),
        seq=p.get("seq"),
        topic=p.get("topic"),
        level_history=tuple(LevelChange.decode(raw) for raw in p.get("level_history") or ()),
    )


def memory_props(memory: Memory) -> dict[str, Any]:
    """Graph properties of ``memory`` (without its vector and tokens)."""
    return {
        "id": memory.id,
        "user_id": memory.user_id,
        "kind": memory.kind.value,
        "content": memory.content,
        "original_content": memory.original_content,
        "level": memory.level.value,
        "category": memory.category.value,
        "importance": memory.importance,
        "source": memory.source.value,
        "verified": memory.verified,
        "created_at": memory.created_at,
        "last_accessed_at": memory.last_accessed_at,
        "access_count": memory.access_count,
        "valid_from": memory.valid_from,
        "valid_to": memory.valid_to,
        "consolidated": memory.consolidated,
        "domain": memory.domain,
        "session_id": memory.session_id,
        "deleted_at": memory.deleted_at,
        "seq": memory.seq,
        "topic": memory.topic,
    }


def message_props(message: Message) -> dict[str, Any]:
    """Graph properties of ``message``."""
    return {
        "id": message.id,
        "session_id": message.session_id,
        "user_id": message.user_id,
        "speaker": message.speaker,
        "role": message.role.value,
        "content": message.content,
        "ts": message.ts,
        "seq": message.seq,
        "client_id": message.client_id,
    }


def memunit_props(unit: MemUnit) -> dict[str, Any]:
    """Graph properties of ``unit`` (without its vector and tokens)."""
    return {
        "id": unit.id,
        "user_ids": list(unit.user_ids),
        "group_id": unit.group_id,
        "session_id": unit.session_id,
        "summary": unit.summary,
        "narrative": unit.narrative,
        "subject": unit.subject,
        "participants": list(unit.participants),
        "keywords": list(unit.keywords),
        "ts": unit.ts,
        "source_type": unit.source_type,
    }


def node_from(labels: list[str], p: Props) -> Memory | MemUnit | Message:
    """A provenance node from its labels and properties."""
    if "Memory" in labels:
        return memory_from(p)
    if "MemUnit" in labels:
        return memunit_from(p)
    if "Message" in labels:
        return message_from(p)
    raise ValueError(f"not a provenance node: {labels}")


class Vector(list[float]):
    """A vector parameter: a plain list to the driver, a short text in its debug log.

    The neo4j driver formats every query's parameters for its debug log before
    it looks at the log level. For a page of 1,000 vectors that ``repr`` took
    200 ms of the event loop's thread, more than packing and sending them
    (measured 2026-11-23); this class packs exactly as a list does.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"


def vector_param(vector: Sequence[float]) -> Vector:
    """``vector`` as a query parameter (see ``Vector``)."""
    return Vector(vector)


def float32(vector: Any) -> Vector:
    """``vector`` rounded to float32, as ArcadeDB stores it, so both servers agree."""
    import numpy as np

    return Vector(np.asarray(vector, dtype=np.float32).tolist())
