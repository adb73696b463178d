"""The schema's input objects the client sends, as frozen dataclasses."""

# Written by `python -m codegen` from schema.graphql: edit that, then run it again.

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hippograph_client.enums import (
    MemoryCategory,
    MemoryKind,
    MemoryLevel,
    MemoryOpKind,
    Role,
    ScoringStrategy,
)


@dataclass(frozen=True)
class NewMessage:
    """
    One message; `clientId` (or content and time) makes replays idempotent (GraphQL's
    MessageInput); unset members keep the server's defaults.
    """

    speaker: str
    content: str
    role: Role | None = None
    ts: datetime | None = None
    client_id: str | None = None


@dataclass(frozen=True)
class MemoryOpFields:
    """
    One memory operation of an agent: ADD, UPDATE, BOOST, DELETE or SKIP (GraphQL's
    MemoryOpInput); unset members keep the server's defaults.
    """

    op: MemoryOpKind
    id: str | None = None
    content: str | None = None
    kind: MemoryKind | None = None
    importance: float | None = None
    hard: bool | None = None
    client_id: str | None = None


@dataclass(frozen=True)
class MemoryFilter:
    """
    Which memories to return; by default only current ones (GraphQL's MemoryFilterInput);
    unset members keep the server's defaults.
    """

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
    """
    How hits are scored: the strategy and its weights (GraphQL's ScoringInput); unset
    members keep the server's defaults.
    """

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
