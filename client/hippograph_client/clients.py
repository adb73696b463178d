"""The two clients: ``AsyncHippoGraph`` over ``httpx.AsyncClient``, and ``HippoGraph``.

``HippoGraph`` is the API from plain (blocking) code, a thin layer over
``AsyncHippoGraph``: each of its methods runs the async client's method of
the same name on an event loop the client keeps on a thread of its own, and
waits for it. So there is one implementation of every operation, its errors
and its job waiting, for both ways of calling. The loop's thread also lets a
blocking caller that is itself inside a running loop (a notebook, a
framework's sync handler) use it.

Both live here, as httpx keeps ``Client`` and ``AsyncClient`` together, so
that a new operation is one method and its blocking twin, one line, in one
file.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, Self, TypeVar, Unpack

import httpx

from hippograph_client.calls import (
    Call,
    forgotten,
    known,
    memorized,
    memory_payload,
    optional,
    payload,
    record,
)
from hippograph_client.enums import Direction
from hippograph_client.inputs import MemoryFilter, MemoryOp, NewMessage, variables_of
from hippograph_client.job_results import ForgetResult, Job, MemorizeResult, ReflectResult
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
    MessagesAdded,
    Provenance,
    SearchResult,
    Session,
    User,
    UserDeletion,
    UserPage,
    Viewer,
)
from hippograph_client.transport import DEFAULT_TIMEOUT, answer, endpoint, headers, unreachable
from hippograph_client.waiting import DEFAULT_JOB_TIMEOUT, JobWait, check_timeout, outcome

T = TypeVar("T")
P = ParamSpec("P")

# The operations, by their names in operations.graphql (each with its
# fragments), asked for at import so that a misspelt name fails at once.
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


class AsyncHippoGraph:
    """A HippoGraph server, reached with one API key.

    ``url`` is the server's address (``http://127.0.0.1:8000``) or its
    GraphQL endpoint. Use it as ``async with AsyncHippoGraph(url, key) as
    hg:``, or call ``aclose()``. Pass ``http`` to reuse an
    ``httpx.AsyncClient`` of yours (its timeouts, proxies, transport); the
    client then leaves closing it to you.

    Every method raises a ``HippoGraphError`` subclass for the API's error
    codes (``NotFound``, ``BadUserInput``, ``Unauthenticated``,
    ``RateLimited``…). The sync ``HippoGraph`` has the same methods.
    """

    def __init__(
        self,
        url: str,
        key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.url = endpoint(url)
        self._headers = headers(key)
        self._owned = http is None
        self._http = http if http is not None else httpx.AsyncClient(timeout=timeout)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client, unless it was handed in."""
        if self._owned:
            await self._http.aclose()

    async def run(self, call: Call[T]) -> T:
        """Send one operation and read its answer."""
        try:
            response = await self._http.post(self.url, json=call.body(), headers=self._headers)
        except httpx.TransportError as exc:
            raise unreachable(self.url, exc) from exc
        return answer(call, response)

    async def viewer(self) -> Viewer:
        """Who this client's key is: admin, or limited to some user ids."""
        return await self.run(Call(VIEWER, {}, "viewer", record(Viewer)))

    async def create_api_key(
        self, name: str, *, user_ids: Sequence[str] = (), admin: bool = False
    ) -> ApiKey:
        """A new key, limited to ``user_ids`` unless ``admin`` (admin keys only)."""
        variables = variables_of({"name": name, "user_ids": user_ids, "admin": admin})
        return await self.run(
            Call(CREATE_API_KEY, {"input": variables}, "createApiKey", payload(ApiKey))
        )

    async def create_user(self, id: str, name: str) -> User:
        """Create a user; ``id`` is yours (1-128 of ``A-Za-z0-9_.:@-``)."""
        variables = {"input": {"id": id, "name": name}}
        return await self.run(Call(CREATE_USER, variables, "createUser", payload(User, "user")))

    async def delete_user(self, id: str, *, dry_run: bool = True) -> UserDeletion:
        """Forget a user and everything derived only from them; by default only report it
        (``dry_run``): what would go, and how much of it is other users'."""
        variables = {"input": {"id": id, "dryRun": dry_run}}
        return await self.run(Call(DELETE_USER, variables, "deleteUser", payload(UserDeletion)))

    async def user(self, id: str) -> User | None:
        """A user, or None if it does not exist or is not this key's."""
        return await self.run(Call(USER, {"id": id}, "user", optional(User)))

    async def users(self, *, first: int | None = None, after: str | None = None) -> UserPage:
        """One page of the users this key may see (every user for an admin key)."""
        variables = variables_of({"first": first, "after": after})
        return await self.run(Call(USERS, variables, "users", record(UserPage)))

    async def create_session(self, user_id: str, title: str | None = None) -> Session:
        """Start a session (a conversation) for a user."""
        variables = {"input": variables_of({"user_id": user_id, "title": title})}
        return await self.run(
            Call(CREATE_SESSION, variables, "createSession", payload(Session, "session"))
        )

    async def add_messages(self, session_id: str, messages: Sequence[NewMessage]) -> MessagesAdded:
        """Store messages without deriving memories; ``memorize`` sent the same
        messages later (with their client ids) derives them.

        A message with a ``client_id`` already stored is not stored again: it is
        among ``messages`` and counted in ``existing``.
        """
        variables = {"input": variables_of({"session_id": session_id, "messages": messages})}
        return await self.run(Call(ADD_MESSAGES, variables, "addMessages", payload(MessagesAdded)))

    async def memorize(
        self,
        user_id: str | Sequence[str],
        session_id: str,
        messages: Sequence[NewMessage],
        *,
        wait: bool = True,
        job_timeout: float = DEFAULT_JOB_TIMEOUT,
        **options: Unpack[MemorizeOptions],
    ) -> MemorizeResult:
        """Remember a conversation: store the messages, derive MemUnits and memories.

        The server does small inputs at once and queues large ones (or any,
        with ``queue=True``). With ``wait`` (the default) a queued job is
        polled until it finishes, at most ``job_timeout`` seconds: ``JobFailed``
        if it fails, ``JobTimeout`` (naming the job) if it is still running.
        """
        if wait:
            check_timeout(job_timeout)
        given = dict(known(options, MemorizeOptions))
        queue = given.pop("queue", None)
        user_ids = [user_id] if isinstance(user_id, str) else list(user_id)
        fields = {"user_ids": user_ids, "session_id": session_id, "messages": messages, **given}
        variables = {"input": {**variables_of(fields), **variables_of({"async": queue})}}
        result = await self.run(Call(MEMORIZE, variables, "memorize", memorized))
        if wait and result.job is not None:
            finished = await self.wait_for_job(result.job.id, job_timeout)
            return replace(result, job=finished, counts=finished.counts)
        return result

    async def job(self, id: str) -> Job | None:
        """A job's current state, or None if it does not exist or is not this key's."""
        return await self.run(Call(JOB, {"id": id}, "job", optional(Job)))

    async def wait_for_job(self, id: str, job_timeout: float = DEFAULT_JOB_TIMEOUT) -> Job:
        """Poll a job until it succeeds (its final state); see ``outcome`` for the errors."""
        check_timeout(job_timeout)
        return outcome(id, await self.settle_job(id, job_timeout), job_timeout)

    async def settle_job(self, id: str, seconds: float) -> Job | None:
        """A job once it has finished, or its state after ``seconds`` (None: no such job).

        It never raises for the job's own sake: a failed job is returned
        failed, one still running is returned as it is (an agent asked to
        wait only so long). ``wait_for_job`` is this, with errors for both.
        """
        waiting = JobWait(seconds)
        job = await self.job(id)
        while (delay := waiting.pause(job)) is not None:
            await asyncio.sleep(delay)
            # A later poll that does not answer within the wait (and a grace)
            # ends it with the state seen last: the server may be slow, the
            # wait is not. The first poll is an ordinary request.
            # (A task, not a timeout around the call: httpx turns a cancel in
            # its read into a ReadTimeout of its own.)
            poll = asyncio.ensure_future(self.job(id))
            try:
                answered, _ = await asyncio.wait({poll}, timeout=waiting.poll_limit())
            finally:
                if not poll.done():
                    poll.cancel()
                    await asyncio.gather(poll, return_exceptions=True)
            if not answered:
                return job
            job = poll.result()
        return job

    async def search(
        self, user_id: str, query: str, **options: Unpack[SearchOptions]
    ) -> SearchResult:
        """A user's memories that matter for ``query``, best first, each with its breakdown."""
        fields = {"user_id": user_id, "query": query, **known(options, SearchOptions)}
        return await self.run(Call(SEARCH, variables_of(fields), "search", record(SearchResult)))

    async def memory(self, id: str) -> Memory | None:
        """A memory, or None if it does not exist or is not this key's."""
        return await self.run(Call(MEMORY, {"id": id}, "memory", optional(Memory)))

    async def memories(
        self,
        user_id: str,
        *,
        filter: MemoryFilter | None = None,
        first: int | None = None,
        after: str | None = None,
    ) -> MemoryPage:
        """One page of a user's memories, newest first (``after``: a page's ``end_cursor``)."""
        fields = {"user_id": user_id, "filter": filter, "first": first, "after": after}
        return await self.run(Call(MEMORIES, variables_of(fields), "memories", record(MemoryPage)))

    async def entities(
        self, user_id: str, *, first: int | None = None, after: str | None = None
    ) -> EntityPage:
        """One page of the people, places, things and dates a user's memories mention, by id."""
        fields = {"user_id": user_id, "first": first, "after": after}
        return await self.run(Call(ENTITIES, variables_of(fields), "entities", record(EntityPage)))

    async def add_memory(
        self, user_id: str, content: str, **options: Unpack[MemoryOptions]
    ) -> Memory:
        """Store a memory, with what it was derived from."""
        fields = {"user_id": user_id, "content": content, **known(options, MemoryOptions)}
        variables = {"input": variables_of(fields)}
        return await self.run(Call(ADD_MEMORY, variables, "addMemory", memory_payload))

    async def update_memory(self, id: str, **edit: Unpack[MemoryEdit]) -> Memory:
        """Edit a memory; new content makes a new version (returned) that supersedes it."""
        variables = {"input": variables_of({"id": id, **known(edit, MemoryEdit)})}
        return await self.run(Call(UPDATE_MEMORY, variables, "updateMemory", memory_payload))

    async def delete_with_provenance(
        self, id: str, *, dry_run: bool = True, expected_deleted: Sequence[str] | None = None
    ) -> DeletionReport:
        """Delete a message, MemUnit or session with what was derived only from it; by
        default only report it (``dry_run``). ``expected_deleted``: the ids a dry run
        listed; if the deletion would now remove anything else, ``Conflict``, nothing gone."""
        fields = {"id": id, "dry_run": dry_run, "expected_deleted": expected_deleted}
        return await self.run(
            Call(
                DELETE_WITH_PROVENANCE,
                {"input": variables_of(fields)},
                "deleteWithProvenance",
                payload(DeletionReport),
            )
        )

    async def delete_memory(self, id: str, *, hard: bool = False) -> MemoryDeleted:
        """Delete a memory: marked deleted, or with ``hard`` removed with its edges."""
        variables = {"input": {"id": id, "hard": hard}}
        return await self.run(
            Call(DELETE_MEMORY, variables, "deleteMemory", payload(MemoryDeleted))
        )

    async def apply_memory_ops(self, user_id: str, ops: Sequence[MemoryOp]) -> MemoryOpsResult:
        """Apply an agent's memory operations in one transaction: all of them or none."""
        variables = {"input": variables_of({"user_id": user_id, "ops": ops})}
        return await self.run(
            Call(APPLY_MEMORY_OPS, variables, "applyMemoryOps", payload(MemoryOpsResult))
        )

    async def provenance(
        self, id: str, *, depth: int | None = None, direction: Direction | None = None
    ) -> Provenance | None:
        """A memory's, MemUnit's or message's provenance subgraph (None if not this key's)."""
        variables = variables_of({"id": id, "depth": depth, "direction": direction})
        return await self.run(Call(PROVENANCE, variables, "provenance", optional(Provenance)))

    async def reflect(
        self,
        user_id: str,
        *,
        force: bool = False,
        wait: bool = False,
        job_timeout: float = DEFAULT_JOB_TIMEOUT,
    ) -> ReflectResult:
        """Queue a reflect run (``force`` skips the cooldown); with ``wait``, until it ends."""
        if wait:
            check_timeout(job_timeout)
        variables = {"userId": user_id, "force": force}
        job = await self.run(Call(REFLECT, variables, "reflect", payload(Job, "job")))
        if wait:
            job = await self.wait_for_job(job.id, job_timeout)
        return ReflectResult(job=job)

    async def forget(
        self,
        user_id: str,
        *,
        wait: bool = False,
        job_timeout: float = DEFAULT_JOB_TIMEOUT,
        **options: Unpack[ForgetOptions],
    ) -> ForgetResult:
        """Run the forgetting policy: its report, or with ``queue=True`` its job.

        With ``wait`` a queued run is polled until it finishes (as ``memorize``).
        """
        if wait:
            check_timeout(job_timeout)
        given = dict(known(options, ForgetOptions))
        queue = given.pop("queue", None)
        variables = {"input": variables_of({"user_id": user_id, **given, "async": queue})}
        result = await self.run(Call(FORGET, variables, "forget", forgotten))
        if wait and result.job is not None:
            return ForgetResult(job=await self.wait_for_job(result.job.id, job_timeout))
        return result


def _blocking(
    method: Callable[Concatenate[AsyncHippoGraph, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[HippoGraph, P], T]:
    """The async client's ``method`` as a blocking one, with its signature and docstring."""

    def call(self: HippoGraph, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._wait(method(self._async, *args, **kwargs))

    functools.update_wrapper(call, method)  # its name, docstring and signature
    return call


class HippoGraph:
    """A HippoGraph server, reached with one API key, from blocking code.

    ``url`` is the server's address (``http://127.0.0.1:8000``) or its
    GraphQL endpoint. Use it as ``with HippoGraph(url, key) as hg:``, or
    call ``close()``. It has the methods of ``AsyncHippoGraph``, with the
    same arguments, results and errors (they are its methods, run to the
    end); only ``close`` differs.
    """

    def __init__(self, url: str, key: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._async = AsyncHippoGraph(url, key, timeout=timeout)  # refuses a blank key first
        self.url = self._async.url
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="hippograph-client", daemon=True
        )
        self._thread.start()

    def _wait(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` on the client's loop and wait for its result (or its exception)."""
        future = asyncio.run_coroutine_threadsafe(work, self._loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()  # an interrupted caller leaves nothing running behind it
            raise

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP client and stop the client's loop (closing twice does nothing)."""
        if self._loop.is_closed():
            return
        try:
            self._wait(self._async.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def run(self, call: Call[T]) -> T:
        """Send one operation and read its answer."""
        return self._wait(self._async.run(call))

    viewer = _blocking(AsyncHippoGraph.viewer)
    create_api_key = _blocking(AsyncHippoGraph.create_api_key)
    create_user = _blocking(AsyncHippoGraph.create_user)
    delete_user = _blocking(AsyncHippoGraph.delete_user)
    user = _blocking(AsyncHippoGraph.user)
    users = _blocking(AsyncHippoGraph.users)
    create_session = _blocking(AsyncHippoGraph.create_session)
    add_messages = _blocking(AsyncHippoGraph.add_messages)
    memorize = _blocking(AsyncHippoGraph.memorize)
    job = _blocking(AsyncHippoGraph.job)
    wait_for_job = _blocking(AsyncHippoGraph.wait_for_job)
    settle_job = _blocking(AsyncHippoGraph.settle_job)
    search = _blocking(AsyncHippoGraph.search)
    memory = _blocking(AsyncHippoGraph.memory)
    memories = _blocking(AsyncHippoGraph.memories)
    entities = _blocking(AsyncHippoGraph.entities)
    add_memory = _blocking(AsyncHippoGraph.add_memory)
    update_memory = _blocking(AsyncHippoGraph.update_memory)
    delete_memory = _blocking(AsyncHippoGraph.delete_memory)
    delete_with_provenance = _blocking(AsyncHippoGraph.delete_with_provenance)
    apply_memory_ops = _blocking(AsyncHippoGraph.apply_memory_ops)
    provenance = _blocking(AsyncHippoGraph.provenance)
    reflect = _blocking(AsyncHippoGraph.reflect)
    forget = _blocking(AsyncHippoGraph.forget)
