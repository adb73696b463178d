"""Live updates for a principal: a job as it changes, a user's new memories as they come.

Events only say what changed (``hippograph.events``); everything a
subscriber receives is read again through the job and memory services with
its own principal, so it sees exactly what a query would, and a job or user
it may not see is the same ``NotFound`` as everywhere else.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass

from hippograph.auth import Principal
from hippograph.events import EventBus, MemoriesAdded, job_topic, memories_topic
from hippograph.ids import IdKind, require_id, require_user_id
from hippograph.jobs import Job
from hippograph.models import Memory
from hippograph.services.jobs import JobService
from hippograph.services.memories import MemoryService
from hippograph.services.users import UserService

# Who the caller is now: a subscription outlives requests, and the key it
# was opened with may be revoked meanwhile (raises ``Unauthenticated`` then).
Recheck = Callable[[], Awaitable[Principal]]

# How often a watched job is read again even if no event came: an event lost
# on the way (a Redis reconnection, a subscriber far behind) then only
# delays the update instead of leaving the subscription hanging.
RESYNC_S = 10.0


@dataclass(eq=False)
class LiveService:
    """Subscriptions' use cases."""

    _bus: EventBus
    _jobs: JobService
    _memories: MemoryService
    _users: UserService
    _resync_s: float = RESYNC_S

    async def job_updates(
        self, principal: Principal, job_id: str, recheck: Recheck | None = None
    ) -> AsyncGenerator[Job, None]:
        """The job now, then each change of it; ends once it has finished.

        ``recheck`` is asked for the caller again before each later read.
        """
        require_id(job_id, IdKind.JOB, "id")
        # The connection's key may have been revoked since it was opened.
        principal = await recheck() if recheck else principal
        # Subscribed before the first read: a change between the two is heard.
        async with self._bus.subscribe(job_topic(job_id)) as listener:
            job = await self._jobs.get_job(principal, job_id)
            yield job
            while not job.finished:
                await listener.next(self._resync_s)
                principal = await recheck() if recheck else principal
                current = await self._jobs.get_job(principal, job_id)
                if current != job:
                    yield current
                job = current

    async def memories_added(
        self, principal: Principal, user_id: str, recheck: Recheck | None = None
    ) -> AsyncGenerator[Memory, None]:
        """Each memory made for a visible user from now on, as it is written.

        ``recheck`` is asked for the caller again at the start, before each
        event's read and every ``_resync_s`` without one, so a revoked key's
        subscription ends though no memory comes.
        """
        require_user_id(user_id, "userId")
        principal = await recheck() if recheck else principal
        user = await self._users.require_user(principal, user_id)
        async with self._bus.subscribe(memories_topic(user.id)) as listener:
            while True:
                event = await listener.next(self._resync_s if recheck else None)
                principal = await recheck() if recheck else principal
                if not isinstance(event, MemoriesAdded):
                    continue
                found = await self._memories.get_memories(principal, list(event.memory_ids))
                for memory_id in event.memory_ids:
                    memory = found.get(memory_id)
                    # Scoped again: an event is a hint, never a permission.
                    if memory is not None and memory.user_id == user.id:
                        yield memory
