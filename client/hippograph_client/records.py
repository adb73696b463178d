"""The API types the client's operations select, as frozen dataclasses."""

# Written by `python -m codegen` from operations/client.graphql: edit that, then run it again.

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hippograph_client.enums import (
    EdgeType,
    EntityKind,
    ForgetAction,
    ForgetPolicy,
    HardDeleteStrategy,
    JobKind,
    JobStatus,
    MemoryCategory,
    MemoryKind,
    MemoryLevel,
    MemoryOpKind,
    MemorySource,
    Role,
    ScoringStrategy,
    SearchMethod,
    SearchMode,
)


@dataclass(frozen=True)
class User:
    """A person whose memories the service keeps."""

    id: str
    name: str
    created_at: datetime


@dataclass(frozen=True)
class Session:
    """A conversation of one user."""

    id: str
    user_id: str
    title: str
    started_at: datetime


@dataclass(frozen=True)
class Message:
    """A raw message: what every memory traces back to."""

    id: str
    session_id: str
    user_id: str
    speaker: str
    role: Role
    content: str
    ts: datetime
    seq: int
    client_id: str | None


@dataclass(frozen=True)
class Job:
    """A background job. Poll `job(id)` until `status` is final."""

    id: str
    kind: JobKind
    status: JobStatus
    user_ids: tuple[str, ...]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    attempts: int
    error: str | None
    counts: JobCounts
    usage: TokenUsage
    forget_counts: ForgetCounts | None


@dataclass(frozen=True)
class JobCounts:
    """What a job made (or has made so far)."""

    messages: int
    memunits: int
    memories: int
    superseded: int
    pending: int
    reflections: int
    consolidated: int


@dataclass(frozen=True)
class TokenUsage:
    """Tokens an LLM used for a job (zero with the offline extractor)."""

    prompt_tokens: int
    completion_tokens: int
    calls: int


@dataclass(frozen=True)
class ForgetCounts:
    """What a forget run did (or would do), in numbers."""

    scanned: int
    exempt: int
    unchanged: int
    changed: int
    promoted: int
    fuzzed: int
    restored: int
    soft_deleted: int
    hard_deleted: int
    cascaded: int
    batches: int
    level_moves: tuple[LevelMove, ...]


@dataclass(frozen=True)
class LevelMove:
    """How many memories moved from one level to another."""

    from_level: MemoryLevel
    to_level: MemoryLevel
    count: int


@dataclass(frozen=True)
class Memory:
    """A memory of one user; each kind has its own type."""

    id: str
    user_id: str
    kind: MemoryKind
    content: str
    original_content: str | None
    level: MemoryLevel
    category: MemoryCategory
    importance: float
    source: MemorySource
    verified: bool
    created_at: datetime
    last_accessed_at: datetime
    access_count: int
    valid_from: datetime | None
    valid_to: datetime | None
    consolidated: bool
    domain: str | None
    topic: str | None
    session_id: str | None
    deleted_at: datetime | None
    about_start: datetime | None
    about_end: datetime | None


@dataclass(frozen=True)
class MemUnit:
    """The smallest unit extracted from a run of messages."""

    id: str
    user_ids: tuple[str, ...]
    session_id: str
    group_id: str | None
    summary: str
    narrative: str
    subject: str
    participants: tuple[str, ...]
    keywords: tuple[str, ...]
    ts: datetime
    source_type: str


@dataclass(frozen=True)
class Viewer:
    """The caller, as its API key sees the world."""

    key_id: str
    admin: bool
    user_ids: tuple[str, ...]


@dataclass(frozen=True)
class Entity:
    """
    A person, place, organisation, thing or date a user's messages and memories mention: one
    per user and normalised name.
    """

    id: str
    user_id: str
    name: str
    norm: str
    kind: EntityKind
    mention_count: int


@dataclass(frozen=True)
class SearchResult:
    """Search results, best first, and how the search ran."""

    hits: tuple[SearchHit, ...]
    method: SearchMethod
    strategy: ScoringStrategy
    mode: SearchMode
    fallback: bool
    period: TimePeriod | None
    touched: bool


@dataclass(frozen=True)
class SearchHit:
    """A ranked memory (or MemUnit) and why it ranks there."""

    memory: Memory | None
    mem_unit: MemUnit | None
    level: MemoryLevel | None
    score: float
    similarity: float | None
    breakdown: ScoreBreakdown


@dataclass(frozen=True)
class ScoreBreakdown:
    """Every score a hit got, and where it came from."""

    semantic: float | None
    keyword: float | None
    relevance: float
    context: float
    time_match: float
    entity: float
    fused: float
    recency: float
    importance: float
    final: float
    vector_rank: int | None
    keyword_rank: int | None
    methods: tuple[SearchMethod, ...]
    fallback: bool


@dataclass(frozen=True)
class TimePeriod:
    """A period the query named, which favoured memories from it."""

    label: str
    start: datetime | None
    end: datetime | None
    month: int | None


@dataclass(frozen=True)
class MemoryDeleted:
    """A deleted memory: `hard` when it was removed, not only marked deleted."""

    id: str
    hard: bool


@dataclass(frozen=True)
class DeletionCounts:
    """How many nodes of each label the deletion removes."""

    sessions: int
    messages: int
    mem_units: int
    memories: int


@dataclass(frozen=True)
class UserDeletion:
    """
    What forgetting a user removes: their sessions with the messages in them, their
    memories, and everything derived only from these, then the user. `applied` says whether
    it was deleted or only reported (a dry run).
    """

    user_id: str
    applied: bool
    counts: DeletionCounts
    other_users_nodes: int
    kept: int


@dataclass(frozen=True)
class MemoryOpResult:
    """What one operation did."""

    index: int
    op: MemoryOpKind
    memory_id: str | None
    superseded_id: str | None


@dataclass(frozen=True)
class MemoryOpsApplied:
    """Every operation was applied, in one transaction."""

    results: tuple[MemoryOpResult, ...]


@dataclass(frozen=True)
class ApiKeyCreated:
    """The key is shown here once; only its hash is kept."""

    id: str
    key: str
    name: str
    admin: bool
    user_ids: tuple[str, ...]
    created_at: datetime


@dataclass(frozen=True)
class MessagesAdded:
    """Every message as stored, and how many this call created."""

    messages: tuple[Message, ...]
    created: int
    existing: int


@dataclass(frozen=True)
class ProvenanceEdge:
    """A typed edge between two nodes of a provenance subgraph."""

    source: str
    type: EdgeType
    target: str


@dataclass(frozen=True)
class ProvenancePath:
    """One path from the root of a provenance subgraph to `target`."""

    node_ids: tuple[str, ...]
    edge_types: tuple[EdgeType, ...]
    target: str


@dataclass(frozen=True)
class ForgetChange:
    """What happened (or would) to one memory."""

    memory_id: str
    action: ForgetAction
    weight: float
    from_level: MemoryLevel
    to_level: MemoryLevel
    promoted: bool
    reason: str


@dataclass(frozen=True)
class ForgetReport:
    """The report of a forget run: the same for a dry run and a real one."""

    user_id: str
    policy: ForgetPolicy
    strategy: HardDeleteStrategy | None
    dry_run: bool
    as_of: datetime
    counts: ForgetCounts
    changes: tuple[ForgetChange, ...]
    changes_truncated: bool
