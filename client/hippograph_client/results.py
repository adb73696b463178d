"""What the client returns: frozen dataclasses, one per API type it reads.

Fields are the schema's, in snake_case (``decode.py`` maps them to the
camelCase JSON); nested lists are tuples so every result is immutable. The
records the operations' fragments select are written from them
(``records.py``, by codegen) and re-exported here; what is left is read by
hand because the client reshapes it: pages, a deletion report's ids,
provenance's union.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from hippograph_client.decode import decode
from hippograph_client.records import ApiKeyCreated as ApiKeyCreated
from hippograph_client.records import DeletionCounts as DeletionCounts
from hippograph_client.records import Entity as Entity
from hippograph_client.records import Memory as Memory
from hippograph_client.records import MemoryDeleted as MemoryDeleted
from hippograph_client.records import MemoryOpResult as MemoryOpResult
from hippograph_client.records import MemoryOpsApplied as MemoryOpsApplied
from hippograph_client.records import MemUnit as MemUnit
from hippograph_client.records import Message as Message
from hippograph_client.records import MessagesAdded as MessagesAdded
from hippograph_client.records import ProvenanceEdge as ProvenanceEdge
from hippograph_client.records import ProvenancePath as ProvenancePath
from hippograph_client.records import ScoreBreakdown as ScoreBreakdown
from hippograph_client.records import SearchHit as SearchHit
from hippograph_client.records import SearchResult as SearchResult
from hippograph_client.records import Session as Session
from hippograph_client.records import TimePeriod as TimePeriod
from hippograph_client.records import User as User
from hippograph_client.records import UserDeletion as UserDeletion
from hippograph_client.records import Viewer as Viewer

ApiKey = ApiKeyCreated
"""A new API key; ``key`` is shown this once (the schema's ``ApiKeyCreated``)."""

MemoryOpsResult = MemoryOpsApplied
"""Every operation was applied, in one transaction (the schema's ``MemoryOpsApplied``)."""


T = TypeVar("T")


def _connection(node: type[T], data: Mapping[str, Any]) -> tuple[tuple[T, ...], bool, str | None]:
    """A connection's nodes, whether a next page exists, and the cursor that asks for it."""
    info = data["pageInfo"]
    nodes = tuple(decode(node, edge["node"]) for edge in data["edges"])
    return nodes, bool(info["hasNextPage"]), info["endCursor"]


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
class Provenance:
    """The subgraph reached from a memory, MemUnit or message along provenance edges."""

    root: ProvenanceNode
    nodes: tuple[ProvenanceNode, ...]
    edges: tuple[ProvenanceEdge, ...]
    paths: tuple[ProvenancePath, ...]
    paths_truncated: bool
