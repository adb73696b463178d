"""Domain records: what the graph holds, as plain frozen dataclasses.

Embeddings are write-only here: reads never carry them back (they are large
and no client needs them), so they travel beside a record in ``IndexedText``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from enum import StrEnum
from typing import Generic, TypeVar


class MemoryKind(StrEnum):
    """What a memory is (docs/design.md §3)."""

    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROFILE = "profile"
    EVENT = "event"
    REFLECTION = "reflection"


class MemoryLevel(StrEnum):
    """How sharp a memory still is (note 002's five levels)."""

    FULL = "full"
    SUMMARY = "summary"
    TAG = "tag"
    TRACE = "trace"
    ARCHIVE = "archive"


class MemoryCategory(StrEnum):
    """Decay class (note 004): system and core never decay."""

    SYSTEM = "system"
    CORE = "core"
    FACT = "fact"
    EPISODE = "episode"


class MemorySource(StrEnum):
    """Who wrote a memory."""

    USER = "user"
    AGENT = "agent"
    EXTRACTION = "extraction"
    REFLECTION = "reflection"
    SYSTEM = "system"
    IMPORT = "import"


class Role(StrEnum):
    """The role of a message's speaker in the conversation."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class Direction(StrEnum):
    """Which way a provenance walk goes: DOWN toward raw messages, UP toward derivations."""

    DOWN = "down"
    UP = "up"


class EdgeType(StrEnum):
    """Relationship types; the only ones Cypher in graph/ ever names."""

    HAS_SESSION = "HAS_SESSION"
    HAS_MESSAGE = "HAS_MESSAGE"
    DERIVED_FROM = "DERIVED_FROM"
    SUMMARIZES = "SUMMARIZES"
    SUPERSEDES = "SUPERSEDES"
    MENTIONS = "MENTIONS"


DEFAULT_CATEGORY: dict[MemoryKind, MemoryCategory] = {
    MemoryKind.EPISODIC: MemoryCategory.EPISODE,
    MemoryKind.SEMANTIC: MemoryCategory.FACT,
    MemoryKind.PROFILE: MemoryCategory.FACT,
    MemoryKind.EVENT: MemoryCategory.FACT,
    MemoryKind.REFLECTION: MemoryCategory.FACT,
}


@dataclass(frozen=True, slots=True)
class User:
    """A person whose memories the service keeps."""

    id: str
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Session:
    """A conversation of one user."""

    id: str
    user_id: str
    title: str
    started_at: datetime


@dataclass(frozen=True, slots=True)
class Message:
    """A raw message: the ground truth every memory traces back to."""

    id: str
    session_id: str
    user_id: str
    speaker: str
    role: Role
    content: str
    ts: datetime
    seq: int
    client_id: str | None = None
    # The offset from UTC the client wrote its time with, in minutes (None:
    # no time given, or stored before offsets were kept). The graph holds
    # instants; "yesterday" said at 20:00 -07:00 means the speaker's day.
    utc_offset: int | None = None

    @property
    def local_ts(self) -> datetime:
        """The time as the speaker wrote it: on their clock, not UTC's."""
        if not self.utc_offset:
            return self.ts
        return self.ts.astimezone(timezone(timedelta(minutes=self.utc_offset)))


@dataclass(frozen=True, slots=True)
class MemUnit:
    """The smallest unit extracted from a run of messages (note 003)."""

    id: str
    user_ids: tuple[str, ...]
    session_id: str
    summary: str
    narrative: str
    subject: str
    ts: datetime
    source_type: str = "conversation"
    group_id: str | None = None
    participants: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LevelChange:
    """A memory moving between levels: when, from which, to which."""

    at: datetime
    from_level: MemoryLevel
    to_level: MemoryLevel

    def encode(self) -> str:
        """The stored form, one string (graph properties hold lists of primitives only)."""
        return f"{self.at.isoformat()}|{self.from_level.value}|{self.to_level.value}"

    @classmethod
    def decode(cls, raw: str) -> LevelChange:
        """The inverse of :meth:`encode`."""
        at, source, target = raw.split("|")
        return cls(datetime.fromisoformat(at), MemoryLevel(source), MemoryLevel(target))


@dataclass(frozen=True, slots=True)
class Memory:
    """A memory of one user, of any kind; reflections are memories too."""

    id: str
    user_id: str
    kind: MemoryKind
    content: str
    importance: float
    created_at: datetime
    last_accessed_at: datetime
    category: MemoryCategory = MemoryCategory.FACT
    level: MemoryLevel = MemoryLevel.FULL
    source: MemorySource = MemorySource.USER
    verified: bool = False
    access_count: int = 0
    original_content: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    consolidated: bool = False
    domain: str | None = None
    session_id: str | None = None
    deleted_at: datetime | None = None
    seq: int | None = None  # where in its session it starts (its first source message)
    # what a profile attribute is about ("city", "job"): a new value supersedes the old
    topic: str | None = None
    level_history: tuple[LevelChange, ...] = ()
    # The period its text names ("yesterday" said on 8 May 2023 is 7 May),
    # resolved when it was said; search matches asked-for periods against it.
    about_start: datetime | None = None
    about_end: datetime | None = None


@dataclass(frozen=True, slots=True)
class IndexedText:
    """What retrieval needs of a text besides the text: its vector and its tokens."""

    embedding: Sequence[float]
    search_text: str


@dataclass(frozen=True, slots=True)
class Edge:
    """A typed, directed edge between two node ids."""

    source: str
    type: EdgeType
    target: str


ProvenanceNode = Memory | MemUnit | Message


@dataclass(frozen=True, slots=True)
class Provenance:
    """A subgraph reached from ``root_id``: its nodes and the edges between them."""

    root_id: str
    nodes: tuple[ProvenanceNode, ...]
    edges: tuple[Edge, ...]


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a keyset-paginated list."""

    items: tuple[T, ...]
    has_next: bool
    end_cursor: str | None = None


@dataclass(frozen=True, slots=True)
class AddedMessages:
    """The outcome of an idempotent append: every message, and which were new."""

    messages: tuple[Message, ...]
    created_ids: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """Which memories a list or a search may return.

    By default only what is current: not consolidated into a reflection, not
    superseded or expired (``valid_to`` in the past), not deleted.
    """

    kinds: tuple[MemoryKind, ...] | None = None
    levels: tuple[MemoryLevel, ...] | None = None
    categories: tuple[MemoryCategory, ...] | None = None
    session_id: str | None = None
    min_importance: float | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    domain: str | None = None
    include_consolidated: bool = False
    include_superseded: bool = False
    include_deleted: bool = False


@dataclass(frozen=True, slots=True)
class Sources:
    """What a new memory is derived from, by label."""

    message_ids: tuple[str, ...] = ()
    memunit_ids: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        """How many sources in all."""
        return len(self.message_ids) + len(self.memunit_ids) + len(self.memory_ids)


class EntityKind(StrEnum):
    """What an entity is, as far as a cheap reading can tell (hippograph/entities.py)."""

    PERSON = "person"
    PLACE = "place"
    ORGANIZATION = "organization"
    THING = "thing"
    DATE = "date"


@dataclass(frozen=True, slots=True)
class EntityMention:
    """One entity a text mentions: its normalised name (the merge key), as written, its kind."""

    norm: str
    name: str
    kind: EntityKind


@dataclass(frozen=True, slots=True)
class Mentions:
    """The entities one message or memory mentions, for its owner's entity nodes."""

    label: str  # "Message" or "Memory"
    node_id: str
    user_id: str
    entities: tuple[EntityMention, ...]


@dataclass(frozen=True, slots=True)
class Entity:
    """An entity node: one per user and normalised name."""

    id: str
    user_id: str
    name: str
    norm: str
    kind: EntityKind
    mention_count: int = 0


@dataclass(frozen=True, slots=True)
class IngestBatch:
    """What one memorize run writes."""

    units: Sequence[tuple[MemUnit, IndexedText, Sequence[str]]]
    memories: Sequence[tuple[Memory, IndexedText, Sources]]
    # the entities the new messages and memories mention (hippograph/entities.py)
    mentions: Sequence[Mentions] = ()


@dataclass(frozen=True, slots=True)
class IngestCounts:
    """What a write created (existing records are not counted)."""

    memunits: int
    memories: int
    superseded: int
    # The memories it created, as written: the others of the batch existed
    # (a replay, or a repeat linked as one more source), and a profile value
    # said again after another replaced it is written under an id of its own.
    created: tuple[Memory, ...] = ()


@dataclass(frozen=True, slots=True)
class MemoryOpsPlan:
    """A checked batch of memory operations, ready to apply in one transaction."""

    adds: Sequence[tuple[Memory, IndexedText]] = ()
    supersedes: Sequence[tuple[Memory, Memory, IndexedText]] = ()
    boosts: Sequence[str] = ()
    soft_deletes: Sequence[str] = ()
    hard_deletes: Sequence[str] = ()
    boost: float = 0.3
    # the entities the added and successor memories mention (empty when off)
    mentions: Sequence[Mentions] = ()
