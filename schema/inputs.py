"""Input objects. GraphQL checks their types; the services check their values."""

from __future__ import annotations

from datetime import datetime

import strawberry

from hippograph import models
from hippograph.services.memories import MemoryChanges, NewMemory
from hippograph.services.memorize import MemorizeRequest
from hippograph.services.memory_ops import MemoryOp
from hippograph.services.messages import MessageInput as DomainMessageInput
from schema.enums import (
    MemoryCategory,
    MemoryKind,
    MemoryLevel,
    MemoryOpKind,
    MemorySource,
    Role,
)


@strawberry.input(description="A new user; a limited key may only create its own user ids.")
class CreateUserInput:
    id: strawberry.ID = strawberry.field(
        description="Your id for this user (1-128 of A-Za-z0-9_.:@-)."
    )
    name: str


@strawberry.input
class CreateSessionInput:
    user_id: strawberry.ID
    title: str = ""


@strawberry.input(
    description="One message; `clientId` (or content and time) makes replays idempotent."
)
class MessageInput:
    speaker: str
    content: str
    role: Role = models.Role.USER
    ts: datetime | None = strawberry.field(
        default=None, description="Defaults to now; needs an offset."
    )
    client_id: str | None = None

    def to_domain(self) -> DomainMessageInput:
        """The service's view of this input."""
        return DomainMessageInput(
            speaker=self.speaker,
            content=self.content,
            role=self.role,
            ts=self.ts,
            client_id=self.client_id,
        )


@strawberry.input
class AddMessagesInput:
    session_id: strawberry.ID
    messages: list[MessageInput]


@strawberry.input(description="A memory to store, with what it was derived from.")
class AddMemoryInput:
    user_id: strawberry.ID
    content: str
    kind: MemoryKind = models.MemoryKind.SEMANTIC
    importance: float = 0.5
    category: MemoryCategory | None = None
    domain: str | None = None
    session_id: strawberry.ID | None = None
    derived_from: list[strawberry.ID] = strawberry.field(
        default_factory=list, description="Message, MemUnit or memory ids of the same user."
    )
    source: MemorySource = models.MemorySource.USER
    verified: bool = False
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    client_id: str | None = strawberry.field(
        default=None,
        description="The client's id for this memory (1-128 printable ASCII, no spaces): sending "
        "it again returns the memory the first request made and writes nothing.",
    )

    def to_domain(self) -> NewMemory:
        """The service's view of this input."""
        return NewMemory(
            user_id=str(self.user_id),
            content=self.content,
            kind=self.kind,
            importance=self.importance,
            category=self.category,
            domain=self.domain,
            session_id=str(self.session_id) if self.session_id is not None else None,
            derived_from=tuple(str(i) for i in self.derived_from),
            source=self.source,
            verified=self.verified,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            client_id=self.client_id,
        )


@strawberry.input(description="An edit. New content keeps the old memory and supersedes it.")
class UpdateMemoryInput:
    id: strawberry.ID
    content: str | None = None
    importance: float | None = None
    category: MemoryCategory | None = None
    domain: str | None = None
    verified: bool | None = None

    def to_domain(self) -> MemoryChanges:
        """The service's view of this input."""
        return MemoryChanges(
            content=self.content,
            importance=self.importance,
            category=self.category,
            domain=self.domain,
            verified=self.verified,
        )


@strawberry.input
class DeleteMemoryInput:
    id: strawberry.ID
    hard: bool = strawberry.field(
        default=False, description="False marks it deleted; true removes it and its edges."
    )


@strawberry.input(description="Which memories to return; by default only current ones.")
class MemoryFilterInput:
    kinds: list[MemoryKind] | None = None
    levels: list[MemoryLevel] | None = None
    categories: list[MemoryCategory] | None = None
    session_id: strawberry.ID | None = None
    min_importance: float | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    domain: str | None = None
    include_consolidated: bool = False
    include_superseded: bool = False
    include_deleted: bool = False

    def to_domain(self) -> models.MemoryFilter:
        """The service's view of this input."""
        return models.MemoryFilter(
            # An empty list stays empty (refused by the service), never "all".
            kinds=tuple(self.kinds) if self.kinds is not None else None,
            levels=tuple(self.levels) if self.levels is not None else None,
            categories=tuple(self.categories) if self.categories is not None else None,
            session_id=str(self.session_id) if self.session_id is not None else None,
            min_importance=self.min_importance,
            created_after=self.created_after,
            created_before=self.created_before,
            domain=self.domain,
            include_consolidated=self.include_consolidated,
            include_superseded=self.include_superseded,
            include_deleted=self.include_deleted,
        )


@strawberry.input(description="A new API key: admin, or limited to some user ids.")
class CreateApiKeyInput:
    name: str
    admin: bool = False
    user_ids: list[strawberry.ID] = strawberry.field(default_factory=list)


@strawberry.input(
    description="A conversation to remember. Messages are stored first (idempotently: replays "
    "create nothing); MemUnits, memories and facts follow now or in a job."
)
class MemorizeInput:
    user_ids: list[strawberry.ID] = strawberry.field(
        description="Whose memories these are; the session's user must be one of them."
    )
    session_id: strawberry.ID
    messages: list[MessageInput]
    history: list[MessageInput] = strawberry.field(
        default_factory=list,
        description="Earlier turns given as context only: not stored, nothing derived from them.",
    )
    group_id: str | None = None
    source_type: str = "conversation"
    run_async: bool | None = strawberry.field(
        default=None,
        name="async",
        description="True: return a job at once. Default: a job when the input is large.",
    )
    flush: bool = strawberry.field(
        default=True,
        description="False keeps an unfinished last MemUnit open for the next call's messages.",
    )

    def to_domain(self) -> MemorizeRequest:
        """The service's view of this input."""
        return MemorizeRequest(
            user_ids=tuple(str(u) for u in self.user_ids),
            session_id=str(self.session_id),
            messages=tuple(m.to_domain() for m in self.messages),
            history=tuple(m.to_domain() for m in self.history),
            group_id=self.group_id,
            source_type=self.source_type,
            run_async=self.run_async,
            flush=self.flush,
        )


@strawberry.input(
    description="One memory operation of an agent: ADD, UPDATE, BOOST, DELETE or SKIP."
)
class MemoryOpInput:
    op: MemoryOpKind
    id: strawberry.ID | None = strawberry.field(
        default=None, description="The memory UPDATE, BOOST and DELETE act on."
    )
    content: str | None = strawberry.field(default=None, description="For ADD and UPDATE.")
    kind: MemoryKind | None = strawberry.field(default=None, description="For ADD (SEMANTIC).")
    importance: float | None = None
    hard: bool = strawberry.field(default=False, description="DELETE removes it entirely.")
    client_id: str | None = strawberry.field(
        default=None,
        description="For ADD: the client's id for the new memory; a retried batch finds the "
        "memory this id made and adds nothing.",
    )

    def to_domain(self) -> MemoryOp:
        """The service's view of this input."""
        return MemoryOp(
            op=self.op,
            id=str(self.id) if self.id is not None else None,
            content=self.content,
            kind=self.kind,
            importance=self.importance,
            hard=self.hard,
            client_id=self.client_id,
        )


@strawberry.input
class ApplyMemoryOpsInput:
    user_id: strawberry.ID
    ops: list[MemoryOpInput]


@strawberry.input(
    description="A message, MemUnit or session to delete with everything derived only from it."
)
class DeleteWithProvenanceInput:
    id: strawberry.ID = strawberry.field(description="A message, MemUnit or session id.")
    dry_run: bool = strawberry.field(
        default=True, description="True (the default) only reports; false deletes."
    )
    expected_deleted: list[strawberry.ID] | None = strawberry.field(
        default=None,
        description="The ids `deleted` listed by an earlier dry run: if the deletion would now "
        "remove anything else (or less), nothing is deleted and a ConflictError says so.",
    )


@strawberry.input(description="A user to forget, with everything derived only from them.")
class DeleteUserInput:
    id: strawberry.ID = strawberry.field(description="The user's id.")
    dry_run: bool = strawberry.field(
        default=True, description="True (the default) only reports; false deletes."
    )
