"""Ports: what the services need from the outside world, as Protocols.

The graph package implements the store ports (``graph.store.GraphStore`` has
one attribute per port); ``hippograph.adapters`` implements the embedder.
Services depend on these Protocols only, so the domain never imports a driver.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from hippograph.auth import ApiKeyRecord
from hippograph.cascade import DerivationClosure
from hippograph.extraction.schema import Extraction, ExtractionRequest
from hippograph.forgetting import BatchWrite, RankKey
from hippograph.forgetting import Candidate as ForgetCandidate
from hippograph.fuzzing import FuzzRequest, FuzzText
from hippograph.models import (
    AddedMessages,
    Direction,
    IndexedText,
    IngestBatch,
    IngestCounts,
    Memory,
    MemoryFilter,
    MemoryOpsPlan,
    MemUnit,
    Message,
    Page,
    Provenance,
    ProvenanceNode,
    Session,
    Sources,
    User,
)
from hippograph.pagination import SeqCursor, TimeCursor
from hippograph.reflection import PendingFact, ReflectionRequest, ReflectionSummary
from hippograph.scoring import Candidate


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


class UserStore(Protocol):
    """Users and sessions."""

    async def create_user(self, user: User) -> None: ...
    async def get_users(self, ids: Sequence[str]) -> dict[str, User]: ...
    async def list_users(self, scope: list[str] | None, after: str, first: int) -> Page[User]: ...
    async def create_session(self, session: Session) -> bool: ...
    async def get_sessions(self, ids: Sequence[str]) -> dict[str, Session]: ...
    async def sessions_of_users(
        self, user_ids: Sequence[str], first: int, after: TimeCursor | None
    ) -> dict[str, Page[Session]]: ...


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


class MemUnitStore(Protocol):
    """MemUnits."""

    async def add(self, unit: MemUnit, indexed: IndexedText, message_ids: Sequence[str]) -> int: ...
    async def get_memunits(
        self, ids: Sequence[str], scope: list[str] | None
    ) -> dict[str, MemUnit]: ...


class MemoryStore(Protocol):
    """Memories and their provenance edges."""

    async def add(self, memory: Memory, indexed: IndexedText, sources: Sources) -> None: ...
    async def add_many(self, items: Sequence[tuple[Memory, IndexedText, Sources]]) -> int: ...
    async def get_memories(self, ids: Sequence[str]) -> dict[str, Memory]: ...
    async def list_memories(
        self,
        user_id: str,
        memory_filter: MemoryFilter,
        first: int,
        after: TimeCursor | None,
        now: datetime,
    ) -> Page[Memory]: ...
    async def update(self, memory_id: str, changes: Mapping[str, Any]) -> Memory | None: ...
    async def supersede(
        self, old_id: str, memory: Memory, indexed: IndexedText, sources: Sources, now: datetime
    ) -> bool: ...
    async def soft_delete(self, memory_id: str, now: datetime) -> bool: ...
    async def hard_delete(self, memory_id: str) -> bool: ...
    async def derived_from(
        self, memory_ids: Sequence[str], scope: list[str] | None
    ) -> dict[str, list[ProvenanceNode]]: ...
    async def summaries(
        self, memory_ids: Sequence[str], scope: list[str] | None, *, by: bool
    ) -> dict[str, list[Memory]]: ...
    async def count(self, user_id: str | None = None) -> int: ...


class SearchStore(Protocol):
    """Candidate generation (see graph/search.py)."""

    async def vector_exact(
        self,
        user_id: str,
        vector: Sequence[float],
        k: int,
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[Candidate]: ...
    async def vector_index(
        self,
        user_id: str,
        vector: Sequence[float],
        candidates: int,
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[Candidate]: ...
    def scoped_vector_index(self) -> bool:
        """Whether ``vector_index`` ranks only the user's memories (no oversampling needed)."""
        ...

    async def keyword(
        self,
        user_id: str,
        terms: Sequence[str],
        candidates: int,
        memory_filter: MemoryFilter,
        now: datetime,
        vector: Sequence[float] | None = None,
        scoped: bool = True,
    ) -> list[Candidate]: ...
    async def unit_vector_exact(
        self, user_id: str, vector: Sequence[float], k: int, memory_filter: MemoryFilter
    ) -> list[Candidate]: ...
    async def unit_vector_index(
        self, user_id: str, vector: Sequence[float], candidates: int, memory_filter: MemoryFilter
    ) -> list[Candidate]: ...
    async def unit_keyword(
        self,
        user_id: str,
        terms: Sequence[str],
        candidates: int,
        memory_filter: MemoryFilter,
        vector: Sequence[float] | None = None,
        scoped: bool = True,
    ) -> list[Candidate]: ...
    async def cosines(self, ids: Sequence[str], vector: Sequence[float]) -> dict[str, float]: ...
    async def unit_cosines(
        self, ids: Sequence[str], vector: Sequence[float]
    ) -> dict[str, float]: ...
    async def count_units(self, user_id: str | None) -> int: ...
    async def sample_search_text(self, user_id: str, limit: int) -> list[str]: ...
    async def touch(self, memory_ids: Sequence[str], now: datetime) -> bool: ...


class ProvenanceStore(Protocol):
    """Provenance walks."""

    async def walk(
        self, root_id: str, depth: int, direction: Direction, scope: list[str] | None
    ) -> Provenance | None: ...


class KeyStore(Protocol):
    """API keys by hash."""

    async def create(self, record: ApiKeyRecord) -> None: ...
    async def by_hash(self, key_hash: str) -> ApiKeyRecord | None: ...
    async def list(self) -> list[ApiKeyRecord]: ...
    async def revoke(self, key_id: str) -> bool: ...
    async def has_admin(self) -> bool: ...


class IngestStore(Protocol):
    """Memorize's reads and its one write (graph/ingest.py)."""

    async def unprocessed(self, session_id: str, limit: int) -> list[Message]: ...
    async def previous(self, session_id: str, seq: int) -> Message | None: ...
    async def write(self, batch: IngestBatch) -> IngestCounts: ...


class MemoryOpsStore(Protocol):
    """Applies a batch of memory operations in one transaction (graph/memory_ops.py)."""

    async def apply(self, plan: MemoryOpsPlan, now: datetime) -> None: ...


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


class CascadeStore(Protocol):
    """Derivation closures and the deletes planned over them (graph/cascade.py)."""

    async def closure(
        self, root_id: str, scope: list[str] | None, limit: int
    ) -> DerivationClosure | None: ...
    async def delete(
        self, root_id: str, expected: Collection[str], scope: list[str] | None, limit: int
    ) -> None: ...


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
