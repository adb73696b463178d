"""What the client sends: typed inputs, each turned into the API's variables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from hippograph_client.decode import camel
from hippograph_client.enums import (
    MemoryCategory,
    MemoryKind,
    MemoryLevel,
    MemoryOpKind,
    Role,
    ScoringStrategy,
)


def variables_of(values: Mapping[str, Any]) -> dict[str, Any]:
    """Python arguments as GraphQL variables: camelCase keys, None members left out.

    Leaving them out lets the schema's defaults apply, so the client never
    restates a default the server owns.
    """
    return {camel(name): to_json(raw) for name, raw in values.items() if raw is not None}


def to_json(raw: Any) -> Any:
    """An argument as JSON: enums by value, datetimes in ISO 8601, inputs as objects."""
    if isinstance(raw, Enum):
        return raw.value
    if isinstance(raw, datetime):
        return raw.isoformat()
    if is_dataclass(raw) and not isinstance(raw, type):
        return variables_of({f.name: getattr(raw, f.name) for f in fields(raw)})
    if isinstance(raw, Sequence) and not isinstance(raw, str):
        return [to_json(item) for item in raw]
    return raw


@dataclass(frozen=True)
class NewMessage:
    """A message to memorize; ``ts`` needs a time zone (defaults to now on the server).

    ``client_id`` makes a replay idempotent: sent again, the message is not stored twice.
    """

    speaker: str
    content: str
    role: Role | None = None
    ts: datetime | None = None
    client_id: str | None = None


@dataclass(frozen=True)
class MemoryOp:
    """One memory operation of an agent.

    Build it with ``MemoryOp.add``, ``update``, ``boost``, ``delete`` or ``skip``.
    """

    op: MemoryOpKind
    id: str | None = None
    content: str | None = None
    kind: MemoryKind | None = None
    importance: float | None = None
    hard: bool | None = None
    client_id: str | None = None

    @classmethod
    def add(
        cls,
        content: str,
        *,
        kind: MemoryKind | None = None,
        importance: float | None = None,
        client_id: str | None = None,
    ) -> MemoryOp:
        """ADD a memory (``client_id`` makes a retried batch add it once)."""
        return cls(
            MemoryOpKind.ADD, content=content, kind=kind, importance=importance, client_id=client_id
        )

    @classmethod
    def update(cls, id: str, content: str) -> MemoryOp:
        """UPDATE a memory: the new content supersedes it."""
        return cls(MemoryOpKind.UPDATE, id=id, content=content)

    @classmethod
    def boost(cls, id: str) -> MemoryOp:
        """BOOST a memory's importance by 0.3."""
        return cls(MemoryOpKind.BOOST, id=id)

    @classmethod
    def delete(cls, id: str, *, hard: bool = False) -> MemoryOp:
        """DELETE a memory (soft unless ``hard``)."""
        return cls(MemoryOpKind.DELETE, id=id, hard=hard)

    @classmethod
    def skip(cls) -> MemoryOp:
        """SKIP: nothing, recorded for the agent's log."""
        return cls(MemoryOpKind.SKIP)


@dataclass(frozen=True)
class MemoryFilter:
    """Which memories a list or a search returns; unset members keep the server's defaults."""

    kinds: tuple[MemoryKind, ...] | None = None
    levels: tuple[MemoryLevel, ...] | None = None
    categories: tuple[MemoryCategory, ...] | None = None
    session_id: str | None = None
    min_importance: float | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    domain: str | None = None
    include_consolidated: bool | None = None
    include_superseded: bool | None = None
    include_deleted: bool | None = None


@dataclass(frozen=True)
class Scoring:
    """How search scores hits; unset members keep the server's defaults."""

    strategy: ScoringStrategy | None = None
    alpha: float | None = None
    beta: float | None = None
    gamma: float | None = None
    decay_rate: float | None = None
    vector_weight: float | None = None
    rrf_k: int | None = None
    context_weight: float | None = None
    time_weight: float | None = None
    entity_weight: float | None = None
    summary_weight: float | None = None
