"""One ``Call`` per API operation: the request to send and how to read its answer.

The async client runs them (all it adds is the I/O, over ``httpx.AsyncClient``),
and the sync client runs the async client's methods, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from hippograph_client.decode import decode
from hippograph_client.enums import Direction
from hippograph_client.errors import from_error_member
from hippograph_client.inputs import MemoryFilter, MemoryOp, NewMessage, variables_of
from hippograph_client.job_results import (
    ForgetReport,
    ForgetResult,
    Job,
    JobCounts,
    MemorizeResult,
    ReflectResult,
)
from hippograph_client.operations import document
from hippograph_client.options import (
    ForgetOptions,
    MemorizeOptions,
    MemoryEdit,
    MemoryOptions,
    SearchOptions,
)
from hippograph_client.results import (
    ApiKey,
    DeletionReport,
    EntityPage,
    Memory,
    MemoryDeleted,
    MemoryOpsResult,
    MemoryPage,
    Message,
    MessagesAdded,
    Provenance,
    SearchResult,
    Session,
    User,
    UserDeletion,
    UserPage,
    Viewer,
)

T = TypeVar("T")

# The operations, by their names in operations.graphql (each with its fragments).
ADD_MEMORY = document("AddMemory")
ADD_MESSAGES = document("AddMessages")
APPLY_MEMORY_OPS = document("ApplyMemoryOps")
CREATE_API_KEY = document("CreateApiKey")
CREATE_SESSION = document("CreateSession")
CREATE_USER = document("CreateUser")
DELETE_MEMORY = document("DeleteMemory")
DELETE_USER = document("DeleteUser")
DELETE_WITH_PROVENANCE = document("DeleteWithProvenance")
ENTITIES = document("Entities")
FORGET = document("Forget")
JOB = document("Job")
MEMORIES = document("Memories")
MEMORIZE = document("Memorize")
MEMORY = document("Memory")
PROVENANCE = document("Provenance")
REFLECT = document("Reflect")
SEARCH = document("Search")
UPDATE_MEMORY = document("UpdateMemory")
USER = document("User")
USERS = document("Users")
VIEWER = document("Viewer")


@dataclass(frozen=True)
class Call(Generic[T]):
    """One GraphQL request and the reader of its root field's value."""

    document: str
    variables: Mapping[str, Any]
    field: str
    read: Callable[[Any], T]

    def body(self) -> dict[str, Any]:
        """The JSON body to POST."""
        return {"query": self.document, "variables": dict(self.variables)}


def success(value: Mapping[str, Any]) -> Mapping[str, Any]:
    """A mutation's union value when it is the success member; its error member raised."""
    if "code" in value and str(value.get("__typename", "")).endswith("Error"):
        raise from_error_member(value)
    return value


def _known(options: Mapping[str, Any], kind: Any) -> Mapping[str, Any]:
    """``options`` if ``kind`` (a TypedDict) declares each; a misspelt one is a TypeError.

    GraphQL ignores variables an operation does not declare, so without this
    ``search(..., topk=3)`` from untyped code would quietly do nothing.
    """
    allowed = kind.__optional_keys__ | kind.__required_keys__
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(f"unexpected option {unknown}: {kind.__name__} has {sorted(allowed)}")
    return options


def _optional(cls: type[T]) -> Callable[[Any], T | None]:
    return lambda value: None if value is None else decode(cls, value)


def viewer() -> Call[Viewer]:
    """Who the key is."""
    return Call(VIEWER, {}, "viewer", lambda v: decode(Viewer, v))


def create_api_key(name: str, user_ids: Sequence[str], admin: bool) -> Call[ApiKey]:
    """A new key (admin keys only)."""
    variables = {"input": variables_of({"name": name, "user_ids": user_ids, "admin": admin})}
    return Call(CREATE_API_KEY, variables, "createApiKey", lambda v: decode(ApiKey, success(v)))


def create_user(id: str, name: str) -> Call[User]:
    """A new user."""
    return Call(
        CREATE_USER,
        {"input": {"id": id, "name": name}},
        "createUser",
        lambda v: decode(User, success(v)["user"]),
    )


def delete_user(id: str, dry_run: bool) -> Call[UserDeletion]:
    """A user forgotten (or, as a dry run, what forgetting them would remove)."""
    return Call(
        DELETE_USER,
        {"input": {"id": id, "dryRun": dry_run}},
        "deleteUser",
        lambda v: decode(UserDeletion, success(v)),
    )


def user(id: str) -> Call[User | None]:
    """A user, or None."""
    return Call(USER, {"id": id}, "user", _optional(User))


def users(first: int | None, after: str | None) -> Call[UserPage]:
    """One page of the users the key may see."""
    variables = variables_of({"first": first, "after": after})
    return Call(USERS, variables, "users", lambda v: decode(UserPage, v))


def delete_with_provenance(
    id: str, dry_run: bool, expected_deleted: Sequence[str] | None
) -> Call[DeletionReport]:
    """A node deleted with what was derived only from it (or, dry, what that would remove)."""
    fields = {"id": id, "dry_run": dry_run, "expected_deleted": expected_deleted}
    return Call(
        DELETE_WITH_PROVENANCE,
        {"input": variables_of(fields)},
        "deleteWithProvenance",
        lambda v: decode(DeletionReport, success(v)),
    )


def create_session(user_id: str, title: str | None) -> Call[Session]:
    """A new session for a user."""
    variables = {"input": variables_of({"user_id": user_id, "title": title})}
    return Call(
        CREATE_SESSION,
        variables,
        "createSession",
        lambda v: decode(Session, success(v)["session"]),
    )


def add_messages(session_id: str, messages: Sequence[NewMessage]) -> Call[MessagesAdded]:
    """Store messages without deriving memories from them."""
    variables = {"input": variables_of({"session_id": session_id, "messages": messages})}
    return Call(ADD_MESSAGES, variables, "addMessages", lambda v: decode(MessagesAdded, success(v)))


def entities(user_id: str, first: int | None, after: str | None) -> Call[EntityPage]:
    """One page of a user's entities."""
    variables = variables_of({"user_id": user_id, "first": first, "after": after})
    return Call(ENTITIES, variables, "entities", lambda v: decode(EntityPage, v))


def _memorized(value: Mapping[str, Any]) -> MemorizeResult:
    found = success(value)
    return MemorizeResult(
        messages=tuple(decode(Message, m) for m in found["messages"]),
        created=int(found["created"]),
        counts=None if found["counts"] is None else decode(JobCounts, found["counts"]),
        job=None if found["job"] is None else decode(Job, found["job"]),
    )


def memorize(
    user_id: str | Sequence[str],
    session_id: str,
    messages: Sequence[NewMessage],
    options: MemorizeOptions,
) -> Call[MemorizeResult]:
    """Store messages and derive memories from them (now, or in a job)."""
    given = dict(_known(options, MemorizeOptions))
    queue = given.pop("queue", None)
    user_ids = [user_id] if isinstance(user_id, str) else list(user_id)
    fields = {"user_ids": user_ids, "session_id": session_id, "messages": messages, **given}
    variables = {"input": {**variables_of(fields), **variables_of({"async": queue})}}
    return Call(MEMORIZE, variables, "memorize", _memorized)


def memorized_by(result: MemorizeResult, finished: Job) -> MemorizeResult:
    """``result`` once its queued job has finished: the job's final state and counts."""
    return replace(result, job=finished, counts=finished.counts)


def job(id: str) -> Call[Job | None]:
    """A job, or None."""
    return Call(JOB, {"id": id}, "job", _optional(Job))


def search(user_id: str, query: str, options: SearchOptions) -> Call[SearchResult]:
    """A user's memories that matter for ``query``."""
    variables = variables_of({"user_id": user_id, "query": query, **_known(options, SearchOptions)})
    return Call(SEARCH, variables, "search", lambda v: decode(SearchResult, v))


def memory(id: str) -> Call[Memory | None]:
    """A memory, or None."""
    return Call(MEMORY, {"id": id}, "memory", _optional(Memory))


def memories(
    user_id: str, filter: MemoryFilter | None, first: int | None, after: str | None
) -> Call[MemoryPage]:
    """One page of a user's memories."""
    variables = variables_of({"user_id": user_id, "filter": filter, "first": first, "after": after})
    return Call(MEMORIES, variables, "memories", lambda v: decode(MemoryPage, v))


def _memory_payload(value: Mapping[str, Any]) -> Memory:
    return decode(Memory, success(value)["memory"])


def add_memory(user_id: str, content: str, options: MemoryOptions) -> Call[Memory]:
    """A new memory."""
    fields = {"user_id": user_id, "content": content, **_known(options, MemoryOptions)}
    variables = {"input": variables_of(fields)}
    return Call(ADD_MEMORY, variables, "addMemory", _memory_payload)


def update_memory(id: str, edit: MemoryEdit) -> Call[Memory]:
    """An edited memory (its new version when the content changed)."""
    variables = {"input": variables_of({"id": id, **_known(edit, MemoryEdit)})}
    return Call(UPDATE_MEMORY, variables, "updateMemory", _memory_payload)


def delete_memory(id: str, hard: bool) -> Call[MemoryDeleted]:
    """A deleted memory."""
    return Call(
        DELETE_MEMORY,
        {"input": {"id": id, "hard": hard}},
        "deleteMemory",
        lambda v: decode(MemoryDeleted, success(v)),
    )


def apply_memory_ops(user_id: str, memory_ops: Sequence[MemoryOp]) -> Call[MemoryOpsResult]:
    """An agent's operations, all or nothing."""
    variables = {"input": variables_of({"user_id": user_id, "ops": memory_ops})}
    return Call(
        APPLY_MEMORY_OPS,
        variables,
        "applyMemoryOps",
        lambda v: decode(MemoryOpsResult, success(v)),
    )


def provenance(id: str, depth: int | None, direction: Direction | None) -> Call[Provenance | None]:
    """The provenance subgraph of a node, or None."""
    variables = variables_of({"id": id, "depth": depth, "direction": direction})
    return Call(PROVENANCE, variables, "provenance", _optional(Provenance))


def reflect(user_id: str, force: bool) -> Call[ReflectResult]:
    """A queued reflect run."""
    return Call(
        REFLECT,
        {"userId": user_id, "force": force},
        "reflect",
        lambda v: ReflectResult(job=decode(Job, success(v)["job"])),
    )


def _forgotten(value: Mapping[str, Any]) -> ForgetResult:
    found = success(value)
    if "job" in found:
        return ForgetResult(job=decode(Job, found["job"]))
    return ForgetResult(report=decode(ForgetReport, found))


def forget(user_id: str, options: ForgetOptions) -> Call[ForgetResult]:
    """A forget run's report, or its job."""
    given = dict(_known(options, ForgetOptions))
    queue = given.pop("queue", None)
    variables = {"input": variables_of({"user_id": user_id, **given, "async": queue})}
    return Call(FORGET, variables, "forget", _forgotten)
