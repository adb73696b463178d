"""What the client returns: frozen dataclasses, one per API type it reads.

Fields are the schema's, in snake_case (``decode.py`` maps them to the
camelCase JSON); nested lists are tuples so every result is immutable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from hippograph_client.decode import decode
from hippograph_client.enums import (
    EdgeType,
    EntityKind,
    MemoryLevel,
    MemoryOpKind,
    ScoringStrategy,
    SearchMethod,
    SearchMode,
)

# The records the operations' fragments select are written from them
# (codegen); re-exported here with the results that hold them.
from hippograph_client.records import Memory as Memory
from hippograph_client.records import MemUnit as MemUnit
from hippograph_client.records import Message as Message
from hippograph_client.records import Session as Session
from hippograph_client.records import User as User


@dataclass(frozen=True)
class Viewer:
    """The API key the client uses, as the server sees it."""

    key_id: str
    admin: bool
    user_ids: tuple[str, ...]


@dataclass(frozen=True)
class ApiKey:
    """A new API key; ``key`` is shown this once."""

    id: str
    key: str
    name: str
    admin: bool
    user_ids: tuple[str, ...]
    created_at: datetime


T = TypeVar("T")


def _connection(node: type[T], data: Mapping[str, Any]) -> tuple[tuple[T, ...], bool, str | None]:
    """A connection's nodes, whether a next page exists, and the cursor that asks for it."""
    info = data["pageInfo"]
    nodes = tuple(decode(node, edge["node"]) for edge in data["edges"])
    return nodes, bool(info["hasNextPage"]), info["endCursor"]


@dataclass(frozen=True)
class MessagesAdded:
    """Messages as stored: the new ones and those a client id had stored before."""

    messages: tuple[Message, ...]
    created: int
    existing: int


@dataclass(frozen=True)
class Entity:
    """A person, place, organisation, thing or date the user's messages and memories mention."""

    id: str
    user_id: str
    name: str
    norm: str
    kind: EntityKind
    mention_count: int


@dataclass(frozen=True)
class EntityPage:
    """One page of a user's entities, by id; ``end_cursor`` asks for the next."""

    entities: tuple[Entity, ...]
    has_next_page: bool
    end_cursor: str | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EntityPage:
        """The page from an ``EntityConnection``."""
        return cls(*_connection(Entity, data))


@dataclass(frozen=True)
class UserPage:
    """One page of the users a key may see; ``end_cursor`` asks for the next."""

    users: tuple[User, ...]
    has_next_page: bool
    end_cursor: str | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> UserPage:
        """The page from a ``UserConnection``."""
        return cls(*_connection(User, data))


@dataclass(frozen=True)
class MemoryPage:
    """One page of a user's memories, newest first; ``end_cursor`` asks for the next."""

    memories: tuple[Memory, ...]
    has_next_page: bool
    end_cursor: str | None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MemoryPage:
        """The page from a ``MemoryConnection``."""
        return cls(*_connection(Memory, data))


@dataclass(frozen=True)
class MemoryDeleted:
    """A deleted memory; ``hard`` when it was removed rather than marked."""

    id: str
    hard: bool


@dataclass(frozen=True)
class DeletionCounts:
    """How many nodes of each label a deletion removes."""

    sessions: int
    messages: int
    mem_units: int
    memories: int


@dataclass(frozen=True)
class DeletionReport:
    """What deleting ``root`` removes (``applied``: removed; else only reported).

    ``deleted`` and ``kept`` are node ids: what goes, and what was derived
    from it but stays because it has other sources too.
    """

    root: str
    applied: bool
    deleted: tuple[str, ...]
    kept: tuple[str, ...]
    counts: DeletionCounts

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DeletionReport:
        """The report from a ``DeletionReport`` whose nodes select their ids."""
        return cls(
            root=data["root"],
            applied=bool(data["applied"]),
            deleted=tuple(node["id"] for node in data["deleted"]),
            kept=tuple(node["id"] for node in data["kept"]),
            counts=decode(DeletionCounts, data["counts"]),
        )


@dataclass(frozen=True)
class UserDeletion:
    """What forgetting a user removes (``applied``: removed; else only reported).

    ``other_users_nodes`` counts what other users drew only from this user's
    conversations; ``kept`` the nodes that stay although they lose a source.
    """

    user_id: str
    applied: bool
    counts: DeletionCounts
    other_users_nodes: int
    kept: int


@dataclass(frozen=True)
class ScoreBreakdown:
    """Every score a search hit got, and where it came from."""

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
class SearchHit:
    """A ranked memory (or MemUnit, for ``target=MEMUNIT``) and why it ranks there."""

    memory: Memory | None
    mem_unit: MemUnit | None
    level: MemoryLevel | None
    score: float
    similarity: float | None
    breakdown: ScoreBreakdown


@dataclass(frozen=True)
class TimePeriod:
    """A period the query named."""

    label: str
    start: datetime | None
    end: datetime | None
    month: int | None


@dataclass(frozen=True)
class SearchResult:
    """Search hits, best first, and how the search ran."""

    hits: tuple[SearchHit, ...]
    method: SearchMethod
    strategy: ScoringStrategy
    mode: SearchMode
    fallback: bool
    period: TimePeriod | None
    touched: bool


@dataclass(frozen=True)
class ProvenanceNode:
    """A node of a provenance subgraph: its GraphQL type, id and text.

    ``text`` is a message's or memory's content, a MemUnit's summary, a
    session's title, or a user's or entity's name.
    """

    type: str
    id: str
    text: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ProvenanceNode:
        """The node from its JSON, whichever field holds its text."""
        for key in ("content", "summary", "title", "name"):
            if data.get(key) is not None:
                return cls(type=data["__typename"], id=data["id"], text=str(data[key]))
        return cls(type=data["__typename"], id=data["id"], text="")


@dataclass(frozen=True)
class ProvenanceEdge:
    """A typed edge between two nodes."""

    source: str
    type: EdgeType
    target: str


@dataclass(frozen=True)
class ProvenancePath:
    """One path from the root to ``target``.

    ``edge_types[i]`` joins ``node_ids[i]`` and ``node_ids[i + 1]``.
    """

    node_ids: tuple[str, ...]
    edge_types: tuple[EdgeType, ...]
    target: str


@dataclass(frozen=True)
class Provenance:
    """The subgraph reached from a memory, MemUnit or message along provenance edges."""

    root: ProvenanceNode
    nodes: tuple[ProvenanceNode, ...]
    edges: tuple[ProvenanceEdge, ...]
    paths: tuple[ProvenancePath, ...]
    paths_truncated: bool


@dataclass(frozen=True)
class MemoryOpResult:
    """What one memory operation did."""

    index: int
    op: MemoryOpKind
    memory_id: str | None
    superseded_id: str | None


@dataclass(frozen=True)
class MemoryOpsResult:
    """Every operation was applied, in one transaction."""

    results: tuple[MemoryOpResult, ...]
