"""Mutation results: a success type or one of the expected errors, as a union."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from schema.cascade import DeletionReport, UserDeletion
from schema.enums import MemoryOpKind
from schema.errors import (
    ConflictError,
    ForbiddenError,
    InputError,
    NotFoundError,
    UnavailableError,
)
from schema.forgetting import ForgetReport
from schema.jobs import Job, JobCounts
from schema.memory import Memory
from schema.types import Message, Session, User


@strawberry.type
class UserCreated:
    user: User


@strawberry.type
class SessionCreated:
    session: Session


@strawberry.type(description="Every message as stored, and how many this call created.")
class MessagesAdded:
    messages: list[Message]
    created: int
    existing: int


@strawberry.type(
    description="The messages as stored; `counts` when the work was done now, `job` when it "
    "was queued (poll `job(id)`)."
)
class Memorized:
    messages: list[Message]
    created: int = strawberry.field(description="Messages this call stored (replays: 0).")
    counts: JobCounts | None
    job: Job | None


@strawberry.type(description="What one operation did.")
class MemoryOpResult:
    index: int
    op: MemoryOpKind
    memory_id: strawberry.ID | None = strawberry.field(
        description="The memory made (ADD, UPDATE) or acted on (BOOST, DELETE)."
    )
    superseded_id: strawberry.ID | None = strawberry.field(
        description="For UPDATE: the memory the new one supersedes."
    )


@strawberry.type(description="Every operation was applied, in one transaction.")
class MemoryOpsApplied:
    results: list[MemoryOpResult]


@strawberry.type
class MemoryPayload:
    memory: Memory


@strawberry.type(
    description="A deleted memory: `hard` when it was removed, not only marked deleted."
)
class MemoryDeleted:
    id: strawberry.ID
    hard: bool


@strawberry.type(description="The key is shown here once; only its hash is kept.")
class ApiKeyCreated:
    id: strawberry.ID
    key: str
    name: str
    admin: bool
    user_ids: list[strawberry.ID]
    created_at: datetime


@strawberry.type
class ApiKeyRevoked:
    id: strawberry.ID


CreateUserResult = Annotated[
    UserCreated | InputError | ConflictError | ForbiddenError | UnavailableError,
    strawberry.union("CreateUserResult"),
]
CreateSessionResult = Annotated[
    SessionCreated | InputError | NotFoundError | UnavailableError,
    strawberry.union("CreateSessionResult"),
]
AddMessagesResult = Annotated[
    MessagesAdded | InputError | NotFoundError | UnavailableError,
    strawberry.union("AddMessagesResult"),
]
MemoryResult = Annotated[
    MemoryPayload | InputError | NotFoundError | ConflictError | UnavailableError,
    strawberry.union("MemoryResult"),
]
DeleteMemoryResult = Annotated[
    MemoryDeleted | InputError | NotFoundError | UnavailableError,
    strawberry.union("DeleteMemoryResult"),
]
CreateApiKeyResult = Annotated[
    ApiKeyCreated | InputError | ForbiddenError | UnavailableError,
    strawberry.union("CreateApiKeyResult"),
]
RevokeApiKeyResult = Annotated[
    ApiKeyRevoked | InputError | NotFoundError | ForbiddenError | UnavailableError,
    strawberry.union("RevokeApiKeyResult"),
]
MemorizeResult = Annotated[
    Memorized | InputError | NotFoundError | UnavailableError,
    strawberry.union("MemorizeResult"),
]
ApplyMemoryOpsResult = Annotated[
    MemoryOpsApplied | InputError | NotFoundError | ConflictError | UnavailableError,
    strawberry.union("ApplyMemoryOpsResult"),
]


@strawberry.type(description="A reflect run was queued; poll `job(id)` for what it made.")
class ReflectQueued:
    job: Job


ReflectResult = Annotated[
    ReflectQueued | InputError | NotFoundError | UnavailableError,
    strawberry.union("ReflectResult"),
]


DeletionResult = Annotated[
    DeletionReport | InputError | NotFoundError | ConflictError | UnavailableError,
    strawberry.union("DeletionResult"),
]

DeleteUserResult = Annotated[
    UserDeletion | InputError | NotFoundError | ConflictError | UnavailableError,
    strawberry.union("DeleteUserResult"),
]


@strawberry.type(description="A forget run was queued; poll `job(id)` for its counts.")
class ForgetQueued:
    job: Job


ForgetResult = Annotated[
    ForgetReport | ForgetQueued | InputError | NotFoundError | ConflictError | UnavailableError,
    strawberry.union("ForgetResult"),
]
