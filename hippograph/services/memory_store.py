"""What memories need from the graph: MemUnits, memories and their provenance edges.

``graph.memunits.MemUnitGraph`` and ``graph.memories.MemoryGraph`` implement
them (structurally, checked by mypy where the composition root hands them to
the services); the contract suite, `tests/graph/`, runs them on every server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from hippograph.models import (
    IndexedText,
    Memory,
    MemoryFilter,
    MemUnit,
    Mentions,
    Page,
    ProvenanceNode,
    Sources,
)
from hippograph.pagination import TimeCursor


class MemUnitStore(Protocol):
    """MemUnits."""

    async def add(self, unit: MemUnit, indexed: IndexedText, message_ids: Sequence[str]) -> int: ...
    async def get_memunits(
        self, ids: Sequence[str], scope: list[str] | None
    ) -> dict[str, MemUnit]: ...


class MemoryStore(Protocol):
    """Memories and their provenance edges."""

    async def add(
        self,
        memory: Memory,
        indexed: IndexedText,
        sources: Sources,
        mentions: Sequence[Mentions] = (),
    ) -> None: ...
    async def add_many(
        self,
        items: Sequence[tuple[Memory, IndexedText, Sources]],
        mentions: Sequence[Mentions] = (),
    ) -> int: ...
    async def get_memories(self, ids: Sequence[str]) -> dict[str, Memory]: ...
    async def list_memories(
        self,
        user_id: str,
        memory_filter: MemoryFilter,
        first: int,
        after: TimeCursor | None,
        now: datetime,
    ) -> Page[Memory]: ...
    async def update(
        self, memory_id: str, changes: Mapping[str, Any], now: datetime
    ) -> Memory | None: ...
    async def supersede(
        self,
        old: Memory,
        memory: Memory,
        indexed: IndexedText,
        sources: Sources,
        now: datetime,
        mentions: Sequence[Mentions] = (),
    ) -> bool: ...
    async def soft_delete(self, memory_id: str, now: datetime) -> bool: ...
    async def hard_delete(self, memory_id: str, now: datetime) -> bool: ...
    async def derived_from(
        self, memory_ids: Sequence[str], scope: list[str] | None
    ) -> dict[str, list[ProvenanceNode]]: ...
    async def summaries(
        self, memory_ids: Sequence[str], scope: list[str] | None, *, by: bool
    ) -> dict[str, list[Memory]]: ...
    async def count(self, user_id: str | None = None) -> int: ...
