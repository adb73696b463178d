"""``AsyncHippoGraph``: the API from asyncio code, over ``httpx.AsyncClient``."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from types import TracebackType
from typing import Self, TypeVar, Unpack

import httpx

from hippograph_client import calls
from hippograph_client.calls import Call
from hippograph_client.enums import Direction
from hippograph_client.inputs import MemoryFilter, MemoryOp, NewMessage
from hippograph_client.job_results import (
    ForgetResult,
    Job,
    MemorizeResult,
    ReflectResult,
)
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
        return await self.run(calls.viewer())

    async def create_api_key(
        self, name: str, *, user_ids: Sequence[str] = (), admin: bool = False
    ) -> ApiKey:
        """A new key, limited to ``user_ids`` unless ``admin`` (admin keys only)."""
        return await self.run(calls.create_api_key(name, user_ids, admin))

    async def create_user(self, id: str, name: str) -> User:
        """Create a user; ``id`` is yours (1-128 of ``A-Za-z0-9_.:@-``)."""
        return await self.run(calls.create_user(id, name))

    async def delete_user(self, id: str, *, dry_run: bool = True) -> UserDeletion:
        """Forget a user and everything derived only from them; by default only report it
        (``dry_run``): what would go, and how much of it is other users'."""
        return await self.run(calls.delete_user(id, dry_run))

    async def user(self, id: str) -> User | None:
        """A user, or None if it does not exist or is not this key's."""
        return await self.run(calls.user(id))

    async def users(self, *, first: int | None = None, after: str | None = None) -> UserPage:
        """One page of the users this key may see (every user for an admin key)."""
        return await self.run(calls.users(first, after))

    async def create_session(self, user_id: str, title: str | None = None) -> Session:
        """Start a session (a conversation) for a user."""
        return await self.run(calls.create_session(user_id, title))

    async def add_messages(self, session_id: str, messages: Sequence[NewMessage]) -> MessagesAdded:
        """Store messages without deriving memories; ``memorize`` sent the same
        messages later (with their client ids) derives them.

        A message with a ``client_id`` already stored is not stored again: it is
        among ``messages`` and counted in ``existing``.
        """
        return await self.run(calls.add_messages(session_id, messages))

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
        result = await self.run(calls.memorize(user_id, session_id, messages, options))
        if wait and result.job is not None:
            return calls.memorized_by(result, await self.wait_for_job(result.job.id, job_timeout))
        return result

    async def job(self, id: str) -> Job | None:
        """A job's current state, or None if it does not exist or is not this key's."""
        return await self.run(calls.job(id))

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
        while True:
            job = await self.job(id)
            delay = waiting.pause(job)
            if delay is None:
                return job
            await asyncio.sleep(delay)

    async def search(
        self, user_id: str, query: str, **options: Unpack[SearchOptions]
    ) -> SearchResult:
        """A user's memories that matter for ``query``, best first, each with its breakdown."""
        return await self.run(calls.search(user_id, query, options))

    async def memory(self, id: str) -> Memory | None:
        """A memory, or None if it does not exist or is not this key's."""
        return await self.run(calls.memory(id))

    async def memories(
        self,
        user_id: str,
        *,
        filter: MemoryFilter | None = None,
        first: int | None = None,
        after: str | None = None,
    ) -> MemoryPage:
        """One page of a user's memories, newest first (``after``: a page's ``end_cursor``)."""
        return await self.run(calls.memories(user_id, filter, first, after))

    async def entities(
        self, user_id: str, *, first: int | None = None, after: str | None = None
    ) -> EntityPage:
        """One page of the people, places, things and dates a user's memories mention, by id."""
        return await self.run(calls.entities(user_id, first, after))

    async def add_memory(
        self, user_id: str, content: str, **options: Unpack[MemoryOptions]
    ) -> Memory:
        """Store a memory, with what it was derived from."""
        return await self.run(calls.add_memory(user_id, content, options))

    async def update_memory(self, id: str, **edit: Unpack[MemoryEdit]) -> Memory:
        """Edit a memory; new content makes a new version (returned) that supersedes it."""
        return await self.run(calls.update_memory(id, edit))

    async def delete_with_provenance(
        self, id: str, *, dry_run: bool = True, expected_deleted: Sequence[str] | None = None
    ) -> DeletionReport:
        """Delete a message, MemUnit or session with what was derived only from it; by
        default only report it (``dry_run``). ``expected_deleted``: the ids a dry run
        listed; if the deletion would now remove anything else, ``Conflict``, nothing gone."""
        return await self.run(calls.delete_with_provenance(id, dry_run, expected_deleted))

    async def delete_memory(self, id: str, *, hard: bool = False) -> MemoryDeleted:
        """Delete a memory: marked deleted, or with ``hard`` removed with its edges."""
        return await self.run(calls.delete_memory(id, hard))

    async def apply_memory_ops(self, user_id: str, ops: Sequence[MemoryOp]) -> MemoryOpsResult:
        """Apply an agent's memory operations in one transaction: all of them or none."""
        return await self.run(calls.apply_memory_ops(user_id, ops))

    async def provenance(
        self, id: str, *, depth: int | None = None, direction: Direction | None = None
    ) -> Provenance | None:
        """A memory's, MemUnit's or message's provenance subgraph (None if not this key's)."""
        return await self.run(calls.provenance(id, depth, direction))

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
        result = await self.run(calls.reflect(user_id, force))
        if wait:
            return ReflectResult(job=await self.wait_for_job(result.job.id, job_timeout))
        return result

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
        result = await self.run(calls.forget(user_id, options))
        if wait and result.job is not None:
            return ForgetResult(job=await self.wait_for_job(result.job.id, job_timeout))
        return result
