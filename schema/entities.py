"""Entities in GraphQL: what a user's memories mention, and which memories mention each."""

from __future__ import annotations

import strawberry

from hippograph import models
from hippograph.pagination import encode_id_cursor
from schema.connection import Connection
from schema.context import Info
from schema.enums import EntityKind
from schema.mapping import from_domain
from schema.memory import MemoryConnection, ProvenanceEdge, memory_cursor, memory_type
from schema.types import Node


@strawberry.type(
    description="A person, place, organisation, thing or date a user's messages and memories "
    "mention: one per user and normalised name."
)
class Entity(Node):
    user_id: strawberry.ID
    name: str = strawberry.field(description="The name as first written.")
    norm: str = strawberry.field(description="The normalised name entities merge by.")
    kind: EntityKind
    mention_count: int = strawberry.field(description="How many messages and memories mention it.")

    @classmethod
    def of(cls, entity: models.Entity) -> Entity:
        """The GraphQL view of a domain entity."""
        return from_domain(cls, entity)

    @strawberry.field(description="The memories that mention this entity, newest first.")
    async def mentioned_in(
        self, info: Info, first: int = 20, after: str | None = None
    ) -> MemoryConnection:
        entity = models.Entity(
            id=str(self.id),
            user_id=str(self.user_id),
            name=self.name,
            norm=self.norm,
            kind=self.kind,
            mention_count=self.mention_count,
        )
        page = await info.context.services.entities.mentioned_in(
            info.context.principal, entity, first, after
        )
        return MemoryConnection.of(page, memory_type, memory_cursor)


@strawberry.type(description="The entities a provenance subgraph's nodes mention.")
class EntityMentions:
    entities: list[Entity]
    edges: list[ProvenanceEdge] = strawberry.field(
        description="MENTIONS edges, from a memory or message of the subgraph to an entity."
    )


@strawberry.type(description="A page of entities, by id.")
class EntityConnection(Connection[Entity]):
    pass


def entity_cursor(entity: models.Entity) -> str:
    """Where a page of entities (by id) ends."""
    return encode_id_cursor(entity.id)
