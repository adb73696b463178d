"""Root queries. Not found and not visible look the same: null."""

from __future__ import annotations

import strawberry

from hippograph import models
from hippograph.errors import NotFound
from hippograph.ids import IdKind, require_id, require_user_id
from hippograph.services import search as search_service
from schema.context import Info
from schema.entities import Entity, EntityConnection, entity_cursor
from schema.enums import Direction, SearchMethod, SearchMode, SearchTarget
from schema.inputs import MemoryFilterInput
from schema.jobs import Job
from schema.memory import Memory, MemoryConnection, Provenance, memory_cursor, memory_type
from schema.permissions import authenticated
from schema.search import ScoringInput, SearchResult
from schema.types import MemUnit, Message, Session, User, UserConnection, user_cursor


@strawberry.type(description="The caller, as its API key sees the world.")
class Viewer:
    key_id: str
    admin: bool
    user_ids: list[strawberry.ID]


@strawberry.type
class Query:
    @strawberry.field(extensions=authenticated(), description="Who the API key in this request is.")
    def viewer(self, info: Info) -> Viewer:
        principal = info.context.principal
        return Viewer(
            key_id=principal.key_id,
            admin=principal.admin,
            user_ids=[strawberry.ID(u) for u in sorted(principal.user_ids)],
        )

    @strawberry.field(
        extensions=authenticated(),
        description="A user, or null if it does not exist or is not yours.",
    )
    async def user(self, info: Info, id: strawberry.ID) -> User | None:
        user = await info.context.loaders.users.load(require_user_id(str(id), "id"))
        return User.of(user) if user else None

    @strawberry.field(
        extensions=authenticated(),
        description="The users this key may see, by id (every user for an admin key).",
    )
    async def users(self, info: Info, first: int = 20, after: str | None = None) -> UserConnection:
        principal = info.context.principal
        page = await info.context.services.users.list_users(principal, first, after)
        return UserConnection.of(page, User.of, user_cursor)

    @strawberry.field(extensions=authenticated(), description="A session, or null.")
    async def session(self, info: Info, id: strawberry.ID) -> Session | None:
        session = await info.context.loaders.sessions.load(
            require_id(str(id), IdKind.SESSION, "id")
        )
        return Session.of(session) if session else None

    @strawberry.field(
        extensions=authenticated(),
        description="A background job (status, counts, errors), or null.",
    )
    async def job(self, info: Info, id: strawberry.ID) -> Job | None:
        principal = info.context.principal
        try:
            return Job.of(await info.context.services.jobs.get_job(principal, str(id)))
        except NotFound:
            return None

    @strawberry.field(extensions=authenticated(), description="A message, or null.")
    async def message(self, info: Info, id: strawberry.ID) -> Message | None:
        principal = info.context.principal
        message_id = require_id(str(id), IdKind.MESSAGE, "id")
        found = await info.context.services.messages.get_messages(principal, [message_id])
        return Message.of(found[message_id]) if message_id in found else None

    @strawberry.field(extensions=authenticated(), description="A MemUnit, or null.")
    async def mem_unit(self, info: Info, id: strawberry.ID) -> MemUnit | None:
        principal = info.context.principal
        unit_id = require_id(str(id), IdKind.MEMUNIT, "id")
        found = await info.context.services.memories.get_memunits(principal, [unit_id])
        return MemUnit.of(found[unit_id]) if unit_id in found else None

    @strawberry.field(extensions=authenticated(), description="A memory of any kind, or null.")
    async def memory(self, info: Info, id: strawberry.ID) -> Memory | None:
        memory = await info.context.loaders.memories.load(require_id(str(id), IdKind.MEMORY, "id"))
        return memory_type(memory) if memory else None

    @strawberry.field(
        extensions=authenticated(),
        description="A user's memories, newest first, one page at a time.",
    )
    async def memories(
        self,
        info: Info,
        user_id: strawberry.ID,
        filter: MemoryFilterInput | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> MemoryConnection:
        page = await info.context.services.memories.list_memories(
            info.context.principal,
            str(user_id),
            filter.to_domain() if filter else models.MemoryFilter(),
            first,
            after,
        )
        return MemoryConnection.of(page, memory_type, memory_cursor)

    @strawberry.field(
        extensions=authenticated(),
        description="The people, places, organisations, things and dates a user's messages "
        "and memories mention, by id.",
    )
    async def entities(
        self, info: Info, user_id: strawberry.ID, first: int = 20, after: str | None = None
    ) -> EntityConnection:
        page = await info.context.services.entities.list_entities(
            info.context.principal, str(user_id), first, after
        )
        return EntityConnection.of(page, Entity.of, entity_cursor)

    @strawberry.field(
        extensions=authenticated(),
        description="An entity, or null if it does not exist or is not yours.",
    )
    async def entity(self, info: Info, id: strawberry.ID) -> Entity | None:
        found = await info.context.services.entities.get_entity(info.context.principal, str(id))
        return Entity.of(found) if found else None

    @strawberry.field(
        extensions=authenticated(),
        description="A user's memories (or MemUnits) that matter for `query`, best first, "
        "each with its score breakdown. Returned memories are marked recalled unless "
        "`touch: false`.",
    )
    async def search(
        self,
        info: Info,
        user_id: strawberry.ID,
        query: str,
        top_k: int = 10,
        method: SearchMethod = SearchMethod.HYBRID,
        scoring: ScoringInput | None = None,
        mode: SearchMode = SearchMode.AUTO,
        filter: MemoryFilterInput | None = None,
        candidates: int = 50,
        radius: float | None = None,
        touch: bool = True,
        target: SearchTarget = SearchTarget.MEMORY,
    ) -> SearchResult:
        chosen = scoring or ScoringInput()
        request = search_service.SearchRequest(
            user_id=str(user_id),
            query=query,
            top_k=top_k,
            method=method,
            strategy=chosen.strategy,
            weights=chosen.weights(),
            mode=mode,
            filter=filter.to_domain() if filter else models.MemoryFilter(),
            candidates=candidates,
            radius=radius,
            touch=touch,
            target=target,
        )
        result = await info.context.services.search.search(info.context.principal, request)
        return SearchResult.of(result)

    @strawberry.field(
        extensions=authenticated(),
        description="The provenance subgraph of a memory, MemUnit or message: DOWN to the "
        "messages it came from, or UP to what was derived from it.",
    )
    async def provenance(
        self,
        info: Info,
        id: strawberry.ID,
        depth: int = 4,
        direction: Direction = Direction.DOWN,
    ) -> Provenance | None:
        found = await info.context.services.provenance.provenance(
            info.context.principal, str(id), depth, direction
        )
        return Provenance.of(found, direction) if found else None
