"""Root mutations: each returns its success type or the expected error, never half a write."""

from __future__ import annotations

import strawberry

from hippograph import forget_report, jobs
from hippograph.errors import NotFound
from hippograph.ids import IdKind, require_id
from schema.cascade import DeletionReport, UserDeletion
from schema.context import Info
from schema.errors import Outcome
from schema.forgetting import ForgetInput, ForgetReport
from schema.inputs import (
    AddMemoryInput,
    AddMessagesInput,
    ApplyMemoryOpsInput,
    CreateApiKeyInput,
    CreateSessionInput,
    CreateUserInput,
    DeleteMemoryInput,
    DeleteUserInput,
    DeleteWithProvenanceInput,
    MemorizeInput,
    UpdateMemoryInput,
)
from schema.jobs import Job, JobCounts
from schema.memory import memory_type
from schema.payloads import (
    AddMessagesResult,
    ApiKeyCreated,
    ApiKeyRevoked,
    ApplyMemoryOpsResult,
    CreateApiKeyResult,
    CreateSessionResult,
    CreateUserResult,
    DeleteMemoryResult,
    DeleteUserResult,
    DeletionResult,
    ForgetQueued,
    ForgetResult,
    Memorized,
    MemorizeResult,
    MemoryDeleted,
    MemoryOpResult,
    MemoryOpsApplied,
    MemoryPayload,
    MemoryResult,
    MessagesAdded,
    ReflectQueued,
    ReflectResult,
    RevokeApiKeyResult,
    SessionCreated,
    UserCreated,
)
from schema.permissions import authenticated
from schema.types import Message, Session, User


@strawberry.type
class Mutation:
    @strawberry.mutation(extensions=authenticated(), description="Create a user.")
    async def create_user(self, info: Info, input: CreateUserInput) -> CreateUserResult:
        principal = info.context.principal
        return await Outcome[CreateUserResult](CreateUserResult)(
            lambda: info.context.services.users.create_user(principal, str(input.id), input.name),
            lambda user: UserCreated(user=User.of(user)),
        )

    @strawberry.mutation(
        extensions=authenticated(), description="Start a session (a conversation) for a user."
    )
    async def create_session(self, info: Info, input: CreateSessionInput) -> CreateSessionResult:
        principal = info.context.principal
        return await Outcome[CreateSessionResult](CreateSessionResult)(
            lambda: info.context.services.users.create_session(
                principal, str(input.user_id), input.title
            ),
            lambda session: SessionCreated(session=Session.of(session)),
        )

    @strawberry.mutation(
        extensions=authenticated(),
        description="Append messages to a session; replays create nothing.",
    )
    async def add_messages(self, info: Info, input: AddMessagesInput) -> AddMessagesResult:
        principal = info.context.principal
        return await Outcome[AddMessagesResult](AddMessagesResult)(
            lambda: info.context.services.messages.add_messages(
                principal, str(input.session_id), [m.to_domain() for m in input.messages]
            ),
            lambda added: MessagesAdded(
                messages=[Message.of(m) for m in added.messages],
                created=len(added.created_ids),
                existing=len(added.messages) - len(added.created_ids),
            ),
        )

    @strawberry.mutation(
        extensions=authenticated(),
        description="Remember a conversation: store its messages, cut them into MemUnits, and "
        "derive episodic memories, facts, event items and profile attributes.",
    )
    async def memorize(self, info: Info, input: MemorizeInput) -> MemorizeResult:
        principal = info.context.principal
        return await Outcome[MemorizeResult](MemorizeResult)(
            lambda: info.context.services.memorize.memorize(principal, input.to_domain()),
            lambda outcome: Memorized(
                messages=[Message.of(m) for m in outcome.added.messages],
                created=len(outcome.added.created_ids),
                counts=JobCounts(**outcome.counts.as_dict()) if outcome.counts else None,
                job=Job.of(outcome.job) if outcome.job else None,
            ),
        )

    @strawberry.mutation(
        extensions=authenticated(),
        description="Apply an agent's memory operations (ADD, UPDATE, BOOST, DELETE, SKIP) "
        "in one transaction: any unknown id or bad value and nothing is applied.",
    )
    async def apply_memory_ops(
        self, info: Info, input: ApplyMemoryOpsInput
    ) -> ApplyMemoryOpsResult:
        principal = info.context.principal
        return await Outcome[ApplyMemoryOpsResult](ApplyMemoryOpsResult)(
            lambda: info.context.services.memory_ops.apply(
                principal, str(input.user_id), [op.to_domain() for op in input.ops]
            ),
            lambda outcomes: MemoryOpsApplied(
                results=[
                    MemoryOpResult(
                        index=i,
                        op=o.op,
                        memory_id=strawberry.ID(o.memory_id) if o.memory_id else None,
                        superseded_id=strawberry.ID(o.superseded_id) if o.superseded_id else None,
                    )
                    for i, o in enumerate(outcomes)
                ]
            ),
        )

    @strawberry.mutation(
        extensions=authenticated(),
        description="Queue a reflect run for a user: when their unconsolidated facts are "
        "important enough, each theme becomes a Reflection that SUMMARIZES them. `force` "
        "skips the one-hour cooldown (not the importance rule).",
    )
    async def reflect(
        self, info: Info, user_id: strawberry.ID, force: bool = False
    ) -> ReflectResult:
        principal = info.context.principal
        return await Outcome[ReflectResult](ReflectResult)(
            lambda: info.context.services.reflection.request(principal, str(user_id), force),
            lambda job: ReflectQueued(job=Job.of(job)),
        )

    @strawberry.mutation(
        extensions=authenticated(),
        description="Run the forgetting policy over a user's memories: FUZZ (the default) moves "
        "each to the level its retention weight gives and never deletes; SOFT_DELETE and "
        "HARD_DELETE remove by policy. `dryRun` reports without writing; `async` queues a job.",
    )
    async def forget(self, info: Info, input: ForgetInput) -> ForgetResult:
        principal = info.context.principal
        service = info.context.services.forgetting

        async def run() -> forget_report.ForgetReport | jobs.Job:
            return await service.forget(
                principal, input.to_domain(), input.dry_run, input.run_async
            )

        def shown(outcome: forget_report.ForgetReport | jobs.Job) -> ForgetReport | ForgetQueued:
            if isinstance(outcome, jobs.Job):
                return ForgetQueued(job=Job.of(outcome))
            return ForgetReport.of(outcome)

        return await Outcome[ForgetResult](ForgetResult)(run, shown)

    @strawberry.mutation(
        extensions=authenticated(), description="Store a memory with what it was derived from."
    )
    async def add_memory(self, info: Info, input: AddMemoryInput) -> MemoryResult:
        principal = info.context.principal
        return await Outcome[MemoryResult](MemoryResult)(
            lambda: info.context.services.memories.add_memory(principal, input.to_domain()),
            lambda memory: MemoryPayload(memory=memory_type(memory)),
        )

    @strawberry.mutation(
        extensions=authenticated(),
        description="Edit a memory. New content creates a new version that SUPERSEDES the old "
        "one (which keeps its text and gets validTo); other fields change in place.",
    )
    async def update_memory(self, info: Info, input: UpdateMemoryInput) -> MemoryResult:
        principal = info.context.principal
        return await Outcome[MemoryResult](MemoryResult)(
            lambda: info.context.services.memories.update_memory(
                principal, str(input.id), input.to_domain()
            ),
            lambda memory: MemoryPayload(memory=memory_type(memory)),
        )

    @strawberry.mutation(
        extensions=authenticated(), description="Delete a memory: soft by default, hard on request."
    )
    async def delete_memory(self, info: Info, input: DeleteMemoryInput) -> DeleteMemoryResult:
        principal = info.context.principal
        return await Outcome[DeleteMemoryResult](DeleteMemoryResult)(
            lambda: info.context.services.memories.delete_memory(
                principal, str(input.id), input.hard
            ),
            lambda memory_id: MemoryDeleted(id=strawberry.ID(memory_id), hard=input.hard),
        )

    @strawberry.mutation(
        extensions=authenticated(), description="Create an API key (admin keys only). Shown once."
    )
    async def create_api_key(self, info: Info, input: CreateApiKeyInput) -> CreateApiKeyResult:
        principal = info.context.principal
        return await Outcome[CreateApiKeyResult](CreateApiKeyResult)(
            lambda: info.context.services.keys.create_key(
                principal, input.name, input.admin, [str(u) for u in input.user_ids]
            ),
            lambda created: ApiKeyCreated(
                id=strawberry.ID(created[0].id),
                key=created[1],
                name=created[0].name,
                admin=created[0].admin,
                user_ids=[strawberry.ID(u) for u in created[0].user_ids],
                created_at=created[0].created_at,
            ),
        )

    @strawberry.mutation(
        extensions=authenticated(), description="Revoke an API key (admin keys only)."
    )
    async def revoke_api_key(self, info: Info, id: strawberry.ID) -> RevokeApiKeyResult:
        principal = info.context.principal

        async def revoke() -> str:
            key_id = require_id(str(id), IdKind.API_KEY, "id")
            if not await info.context.services.keys.revoke(principal, key_id):
                raise NotFound("API key", key_id)
            return key_id

        return await Outcome[RevokeApiKeyResult](RevokeApiKeyResult)(
            revoke, lambda key_id: ApiKeyRevoked(id=strawberry.ID(key_id))
        )

    @strawberry.mutation(
        extensions=authenticated(),
        description="Delete a message, MemUnit or session with everything derived only from "
        "it; what is also derived from other sources is kept, and listed as `kept`. A dry run "
        "(the default) only reports. Deleting a session deletes its messages.",
    )
    async def delete_with_provenance(
        self, info: Info, input: DeleteWithProvenanceInput
    ) -> DeletionResult:
        principal = info.context.principal
        confirmed = input.expected_deleted
        expected = None if confirmed is None else [str(i) for i in confirmed]
        return await Outcome[DeletionResult](DeletionResult)(
            lambda: info.context.services.cascade.delete_with_provenance(
                principal, str(input.id), dry_run=input.dry_run, expected=expected
            ),
            DeletionReport.of,
        )

    @strawberry.mutation(
        extensions=authenticated(),
        description="Forget a user who asks for it: their sessions (with the messages in them), "
        "their memories and everything derived only from these, then the user. A dry run (the "
        "default) only reports. A key limited to some users is refused (ConflictError, nothing "
        "deleted) where this would destroy another user's data.",
    )
    async def delete_user(self, info: Info, input: DeleteUserInput) -> DeleteUserResult:
        principal = info.context.principal
        return await Outcome[DeleteUserResult](DeleteUserResult)(
            lambda: info.context.services.user_deletion.delete_user(
                principal, str(input.id), dry_run=input.dry_run
            ),
            UserDeletion.of,
        )
