"""Memories (one type per kind behind the ``Memory`` interface) and provenance."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry

from hippograph import models, provenance_paths
from hippograph.pagination import encode_time_cursor
from schema.connection import Connection
from schema.context import Info
from schema.enums import EdgeType, MemoryCategory, MemoryKind, MemoryLevel, MemorySource
from schema.mapping import from_domain
from schema.types import MemUnit, Message, Node, Session, User

if TYPE_CHECKING:
    from schema.entities import EntityMentions


@strawberry.type(description="A memory moving from one level to another, and when.")
class LevelChange:
    at: datetime
    from_level: MemoryLevel
    to_level: MemoryLevel


@strawberry.interface(description="A memory of one user; each kind has its own type.")
class Memory(Node):
    user_id: strawberry.ID
    kind: MemoryKind
    content: str
    original_content: str | None = strawberry.field(
        description="The text before fuzzing rewrote `content`, when it did."
    )
    level: MemoryLevel
    category: MemoryCategory
    importance: float
    source: MemorySource
    verified: bool
    created_at: datetime
    last_accessed_at: datetime
    access_count: int
    valid_from: datetime | None
    valid_to: datetime | None = strawberry.field(
        description="Set when the memory was superseded or expired."
    )
    consolidated: bool = strawberry.field(
        description="True once a reflection summarises it (it leaves default retrieval)."
    )
    domain: str | None
    topic: str | None = strawberry.field(
        description="What a profile attribute or fact is about (`city`, `job`, `preference`)."
    )
    session_id: strawberry.ID | None
    deleted_at: datetime | None
    level_history: list[LevelChange] = strawberry.field(
        description="Every level change forgetting made, oldest first."
    )
    about_start: datetime | None = strawberry.field(
        description='Start of the period the content names ("yesterday" said on 8 May 2023 '
        "is 7 May), resolved from when it was said; search matches asked-for periods against it."
    )
    about_end: datetime | None = strawberry.field(
        description="End (exclusive) of the period the content names."
    )

    @strawberry.field(
        description="What this memory was derived from: messages, MemUnits, memories."
    )
    async def derived_from(self, info: Info) -> list[Node]:
        nodes = await info.context.loaders.derived_from.load(self.id)
        return [node_type(n) for n in nodes]

    @strawberry.field(description="The reflections that summarise this memory.")
    async def summarized_by(self, info: Info) -> list[Reflection]:
        found = await info.context.loaders.summarized_by.load(self.id)
        return [_as_reflection(m) for m in found]

    @strawberry.field(description="The user this memory belongs to.")
    async def user(self, info: Info) -> User | None:
        user = await info.context.loaders.users.load(self.user_id)
        return User.of(user) if user else None

    @strawberry.field(description="The session it was recorded in, if any.")
    async def session(self, info: Info) -> Session | None:
        if self.session_id is None:
            return None
        session = await info.context.loaders.sessions.load(self.session_id)
        return Session.of(session) if session else None


@strawberry.type(description="What happened: a narrative of an episode.")
class EpisodicMemory(Memory):
    pass


@strawberry.type(description="A fact or piece of general knowledge about the user.")
class SemanticMemory(Memory):
    pass


@strawberry.type(description="A profile attribute of the user.")
class ProfileMemory(Memory):
    pass


@strawberry.type(description="An atomic, dated event-log item.")
class EventMemory(Memory):
    pass


@strawberry.type(description="A higher-level memory that summarises other memories.")
class Reflection(Memory):
    @strawberry.field(description="The memories (facts, reflections) it summarises.")
    async def summarizes(self, info: Info) -> list[Memory]:
        found = await info.context.loaders.summarizes.load(self.id)
        return [memory_type(m) for m in found]


def _as_reflection(memory: models.Memory) -> Reflection:
    made = memory_type(memory)
    assert isinstance(made, Reflection)  # only reflections have SUMMARIZES edges
    return made


_KINDS: dict[models.MemoryKind, type[Memory]] = {
    models.MemoryKind.EPISODIC: EpisodicMemory,
    models.MemoryKind.SEMANTIC: SemanticMemory,
    models.MemoryKind.PROFILE: ProfileMemory,
    models.MemoryKind.EVENT: EventMemory,
    models.MemoryKind.REFLECTION: Reflection,
}

MEMORY_TYPES: tuple[type[Memory], ...] = tuple(_KINDS.values())


def memory_type(memory: models.Memory) -> Memory:
    """The GraphQL object for a domain memory, typed by its kind."""
    history = [from_domain(LevelChange, change) for change in memory.level_history]
    return from_domain(_KINDS[memory.kind], memory, level_history=history)


def node_type(node: models.ProvenanceNode) -> Node:
    """The GraphQL object for any provenance node."""
    if isinstance(node, models.Memory):
        return memory_type(node)
    if isinstance(node, models.MemUnit):
        return MemUnit.of(node)
    return Message.of(node)


@strawberry.type(description="A page of memories, newest first.")
class MemoryConnection(Connection[Memory]):
    pass


def memory_cursor(memory: models.Memory) -> str:
    """Where a page of memories (newest first) ends."""
    return encode_time_cursor(memory.created_at, memory.id)


@strawberry.type(description="A typed edge between two nodes of a provenance subgraph.")
class ProvenanceEdge:
    source: strawberry.ID
    type: EdgeType
    target: strawberry.ID


@strawberry.type(description="One path from the root of a provenance subgraph to `target`.")
class ProvenancePath:
    node_ids: list[strawberry.ID] = strawberry.field(
        description="The nodes from the root to `target`, in order."
    )
    edge_types: list[EdgeType] = strawberry.field(
        description="The type of each hop: `edgeTypes[i]` joins `nodeIds[i]` and `nodeIds[i+1]`."
    )
    target: strawberry.ID

    @classmethod
    def of(cls, path: provenance_paths.ProvenancePath) -> ProvenancePath:
        """The GraphQL view of one path."""
        return cls(
            node_ids=[strawberry.ID(n) for n in path.node_ids],
            edge_types=list(path.edge_types),
            target=strawberry.ID(path.target),
        )


@strawberry.type(description="The subgraph reached from `root` along provenance edges.")
class Provenance:
    root: Node
    nodes: list[Node]
    edges: list[ProvenanceEdge]
    walk: strawberry.Private[models.Provenance]
    direction: strawberry.Private[models.Direction]
    # paths are computed on first ask: most clients want only nodes and edges
    path_set: strawberry.Private[provenance_paths.PathSet | None] = None

    @strawberry.field(
        description="Every path from the root: DOWN, to each message reached; UP, to each "
        "node from which nothing further was derived within the walk. Shortest first, then "
        f"by node ids; at most {provenance_paths.MAX_PATHS} (see `pathsTruncated`)."
    )
    def paths(self) -> list[ProvenancePath]:
        return [ProvenancePath.of(p) for p in self._paths().paths]

    @strawberry.field(
        description=f"True when there were more than {provenance_paths.MAX_PATHS} paths and "
        "`paths` holds only the first of them."
    )
    def paths_truncated(self) -> bool:
        return self._paths().truncated

    @strawberry.field(
        description="The people, places, organisations, things and dates the memories and "
        "messages of this subgraph mention, with the MENTIONS edges to them (not provenance: "
        "`paths` never follow them)."
    )
    async def mentions(
        self, info: Info
    ) -> Annotated[EntityMentions, strawberry.lazy("schema.entities")]:
        from schema.entities import Entity, EntityMentions

        entities, edges = await info.context.services.entities.mentions_of(
            info.context.principal, [n.id for n in self.walk.nodes]
        )
        return EntityMentions(
            entities=[Entity.of(e) for e in entities],
            edges=[
                ProvenanceEdge(
                    source=strawberry.ID(e.source), type=e.type, target=strawberry.ID(e.target)
                )
                for e in edges
            ],
        )

    def _paths(self) -> provenance_paths.PathSet:
        if self.path_set is None:
            self.path_set = provenance_paths.provenance_paths(self.walk, self.direction)
        return self.path_set

    @classmethod
    def of(cls, provenance: models.Provenance, direction: models.Direction) -> Provenance:
        """The GraphQL view of a provenance walk in ``direction``."""
        nodes = {n.id: node_type(n) for n in provenance.nodes}
        return cls(
            root=nodes[provenance.root_id],
            nodes=list(nodes.values()),
            edges=[
                ProvenanceEdge(
                    source=strawberry.ID(e.source), type=e.type, target=strawberry.ID(e.target)
                )
                for e in provenance.edges
            ],
            walk=provenance,
            direction=direction,
        )
