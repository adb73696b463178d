"""Ports: what the services need from the outside world, as Protocols.

The graph package implements the store ports (``graph.store.GraphStore`` has
one attribute per port); ``hippograph.adapters`` implements the embedder.
Services depend on these Protocols only, so the domain never imports a driver.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from hippograph.extraction.schema import Extraction, ExtractionRequest
from hippograph.forgetting import BatchWrite, RankKey
from hippograph.forgetting import Candidate as ForgetCandidate
from hippograph.fuzzing import FuzzRequest, FuzzText
from hippograph.models import (
    IndexedText,
    IngestBatch,
    IngestCounts,
    Memory,
    Message,
)
from hippograph.reflection import PendingFact, ReflectionRequest, ReflectionSummary


class Embedder(Protocol):
    """Turns texts into unit vectors, off the event loop."""

    @property
    def model_name(self) -> str:
        """The model's name as configured."""
        ...

    @property
    def dimensions(self) -> int:
        """Length of every vector."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One normalised vector per text, in order."""
        ...


class LLM(Protocol):
    """Understands a MemUnit: summary, narrative, facts, profile (DESIGN.md §5)."""

    @property
    def name(self) -> str:
        """What extracts (``offline`` or the model's name), recorded on jobs."""
        ...

    async def extract(
        self, request: ExtractionRequest, vectors: Sequence[Sequence[float]] | None = None
    ) -> Extraction:
        """Everything the unit yields; ``vectors`` are its messages' embeddings, if known."""
        ...

    async def reflect(self, request: ReflectionRequest) -> ReflectionSummary:
        """A reflection over one theme's facts about a user."""
        ...

    async def fuzz(self, request: FuzzRequest) -> FuzzText:
        """A memory's text at a fainter level (summary, tag), and its topic."""
        ...


class IngestStore(Protocol):
    """Memorize's reads and its one write (graph/ingest.py)."""

    async def unprocessed(self, session_id: str, limit: int) -> list[Message]: ...
    async def previous(self, session_id: str, seq: int) -> Message | None: ...
    async def write(self, batch: IngestBatch) -> IngestCounts: ...


class ReflectionStore(Protocol):
    """Reflection's reads and its one write (graph/reflection.py)."""

    async def pending_total(
        self, user_id: str, kinds: Sequence[str], now: datetime, as_of: datetime
    ) -> tuple[int, float]: ...
    async def pending(
        self, user_id: str, kinds: Sequence[str], now: datetime, as_of: datetime, limit: int
    ) -> list[PendingFact]: ...
    async def last_reflection_at(self, user_id: str) -> datetime | None: ...
    async def users_with_pending(
        self,
        kinds: Sequence[str],
        min_facts: int,
        min_importance: float,
        after: str,
        limit: int,
    ) -> list[str]: ...
    async def write(
        self, reflections: Sequence[tuple[Memory, IndexedText, Sequence[str]]]
    ) -> tuple[int, int]: ...


class ForgetStore(Protocol):
    """Pages of a user's memories and the batches a forget run writes (graph/forgetting.py)."""

    async def candidates(
        self, user_id: str, with_deleted: bool, named: Sequence[str] = ()
    ) -> list[ForgetCandidate]: ...
    async def texts(
        self, user_id: str, ids: Sequence[str]
    ) -> dict[str, tuple[str, str | None]]: ...
    async def capacity_cutoff(
        self, user_id: str, capacity: int, named: Sequence[str] = ()
    ) -> RankKey | None: ...
    async def apply(self, batch: BatchWrite) -> int: ...
    async def users(self, after: str, limit: int) -> list[str]: ...
