"""The reflect use case and job: a user's facts, grouped by theme, summarised.

Reflection runs as a job (``JobKind.REFLECT``): after memorize writes facts,
on a schedule (``sweep``), and on request (the ``reflect`` mutation). The
job reads the user's pending facts, checks the rule, groups them by theme,
asks the ``LLM`` port for one summary per theme, embeds the summaries in one
batch and writes everything in one transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from hippograph import text
from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.events import NO_EVENTS, Announcer
from hippograph.ids import IdKind, derived_id, new_id, require_user_id
from hippograph.jobs import Job, JobKind
from hippograph.models import IndexedText, Memory, MemoryCategory, MemoryKind, MemorySource
from hippograph.ports import LLM, Embedder, Usage
from hippograph.reflection import (
    REFLECTION_IMPORTANCE,
    TOPIC_LIMIT,
    PendingFact,
    ReflectionRequest,
    ReflectionRules,
    is_due,
    one_per_theme,
    reflection_id,
    themes,
)
from hippograph.services.job_runner import JobResult
from hippograph.services.jobs import JobService
from hippograph.services.users import UserService, UserStore
from hippograph.settings import ReflectionSettings
from hippograph.similarity import SimilarityScale
from hippograph.together import all_or_none


class ReflectionStore(Protocol):
    """Reflection's reads and its one write (graph/reflection.py)."""

    async def pending_total(
        self, user_id: str, kinds: Sequence[str], now: datetime, as_of: datetime
    ) -> tuple[int, float]: ...
    async def pending(
        self, user_id: str, kinds: Sequence[str], now: datetime, as_of: datetime, limit: int
    ) -> list[PendingFact]: ...
    async def last_reflection_at(self, user_id: str) -> datetime | None: ...
    async def users_with_pending(
        self,
        kinds: Sequence[str],
        min_facts: int,
        min_importance: float,
        after: str,
        limit: int,
        now: datetime,
    ) -> list[str]: ...
    async def write(
        self, reflections: Sequence[tuple[Memory, IndexedText, Sequence[str]]]
    ) -> tuple[int, int]: ...


_SUMMARIES_AT_ONCE = 4


@dataclass(frozen=True, slots=True)
class ReflectOutcome:
    """What one reflect run did."""

    due: bool
    reflections: int = 0
    consolidated: int = 0
    usage: Usage = field(default_factory=Usage)


class ReflectJob(BaseModel):
    """A reflect run's work: whose facts, and whether to skip the "is it due" rule."""

    model_config = ConfigDict(frozen=True)

    kind: Literal[JobKind.REFLECT] = JobKind.REFLECT
    user_id: str
    force: bool = False


def reflection_rules(settings: ReflectionSettings, scale: SimilarityScale) -> ReflectionRules:
    """The rules ``settings`` set; the theme threshold is the model's unless set."""
    threshold = settings.cluster_threshold
    return ReflectionRules(
        min_importance_sum=settings.min_importance_sum,
        min_facts=settings.min_facts,
        cooldown=timedelta(minutes=settings.cooldown_minutes),
        cluster_threshold=threshold if threshold is not None else scale.theme,
        max_facts_per_reflection=settings.max_facts_per_reflection,
    )


@dataclass(eq=False)
class ReflectionService:
    """Reflection for principals (request a run) and for the job runner (do it)."""

    _store: ReflectionStore
    _user_store: UserStore
    _users: UserService
    _embedder: Embedder
    _llm: LLM
    _jobs: JobService
    _clock: Clock
    _settings: ReflectionSettings
    _events: Announcer = NO_EVENTS
    _rules: ReflectionRules = field(init=False)

    def __post_init__(self) -> None:
        self._rules = reflection_rules(self._settings, self._embedder.scale)

    async def request(self, principal: Principal, user_id: str, force: bool) -> Job:
        """Queue a reflect run for a visible user; the job reports what it made."""
        require_user_id(user_id)
        user = await self._users.require_user(principal, user_id)
        return await self.submit(user.id, force)

    async def submit(self, user_id: str, force: bool = False, job_id: str | None = None) -> Job:
        """Queue a reflect run (after memorize, from the sweep)."""
        job_id = job_id or new_id(IdKind.JOB, self._clock())
        return await self._jobs.submit(job_id, [user_id], ReflectJob(user_id=user_id, force=force))

    async def sweep(self) -> list[Job]:
        """Queue a run for every user whose pending facts could make a reflection.

        Page by user id, as the forget sweep does: one page of a thousand
        would leave every user after the thousandth without reflections. A
        user still in the cooldown waits for a later sweep. The job's id
        comes from the user, the day and what is pending: facts that make no
        theme are not tried again on every sweep (each try a job record),
        only once a day or when a fact comes or goes.
        """
        rules, settings = self._rules, self._settings
        queued: list[Job] = []
        after = ""
        now = self._clock()
        while users := await self._store.users_with_pending(
            settings.kinds,
            rules.min_facts,
            rules.min_importance_sum,
            after,
            settings.sweep_page,
            now,
        ):
            for user_id in users:
                last = await self._store.last_reflection_at(user_id)
                if last is not None and now - last < rules.cooldown:
                    continue
                count, weight = await self._store.pending_total(user_id, settings.kinds, now, now)
                pending = (now.date().isoformat(), str(count), f"{weight:.6f}")
                job_id = derived_id(IdKind.JOB, "reflect-sweep", user_id, *pending)
                queued.append(await self.submit(user_id, job_id=job_id))
            after = users[-1]
        return queued

    async def run_job(self, job: Job, work: ReflectJob) -> JobResult:
        """The reflect job's handler: only memories made by the job's submission count."""
        outcome = await self.reflect(work.user_id, work.force, as_of=job.created_at)
        counts = {
            "due": int(outcome.due),
            "reflections": outcome.reflections,
            "consolidated": outcome.consolidated,
        }
        return JobResult(counts=counts, usage=outcome.usage)

    async def reflect(
        self, user_id: str, force: bool = False, as_of: datetime | None = None
    ) -> ReflectOutcome:
        """Reflect on a user's pending facts if the rule says so (``force``: no cooldown).

        Only memories made by ``as_of`` (the job's submission) count: a job
        retried after its write committed must not reflect on its own output.
        """
        now = self._clock()
        as_of = as_of or now
        kinds = self._settings.kinds
        count, importance = await self._store.pending_total(user_id, kinds, now, as_of)
        if count < self._rules.min_facts or importance < self._rules.min_importance_sum:
            return ReflectOutcome(due=False)
        users = await self._user_store.get_users([user_id])
        if user_id not in users:
            # Memories left without their user (a race before a memory's
            # creation needed it): a reflection could not be written under
            # no one, and the model would be paid for nothing.
            return ReflectOutcome(due=False)
        facts = await self._store.pending(user_id, kinds, now, as_of, self._settings.max_pending)
        last = await self._store.last_reflection_at(user_id)
        if not is_due(facts, last, now, self._rules, force):
            return ReflectOutcome(due=False)
        groups = themes(facts, self._rules)
        if not groups:
            return ReflectOutcome(due=True)
        name = users[user_id].name
        gate = asyncio.Semaphore(_SUMMARIES_AT_ONCE)

        async def summarise(group: Sequence[str]) -> tuple[str, Usage, str]:
            request = ReflectionRequest(user_name=name, facts=list(group))
            async with gate:
                summary = await self._llm.reflect(request)
            return summary.content, summary.usage, summary.topic

        ordered = [sorted(g, key=lambda f: (-f.importance, f.id)) for g in groups]
        first = await all_or_none(summarise([f.told_of(name) for f in g]) for g in ordered)
        usage = Usage()
        for _, used, _ in first:
            usage = usage.plus(used)
        # One reflection per theme: groups that came out on one theme, and an
        # earlier reflection on it, are summarised again as one.
        merged = one_per_theme(
            ordered, [t for _, _, t in first], facts, self._rules.max_facts_per_reflection
        )
        done = {
            frozenset(f.id for f in g): summary for g, summary in zip(ordered, first, strict=True)
        }
        # The merged groups' summaries side by side, as the first pass's.
        redone = iter(
            await all_or_none(
                summarise([f.told_of(name) for f in g]) for g, again in merged if again
            )
        )
        summaries = [
            next(redone) if changed else done[frozenset(f.id for f in group)]
            for group, changed in merged
        ]
        vectors = await self._embedder.embed([content for content, _, _ in summaries])
        items: list[tuple[Memory, IndexedText, Sequence[str]]] = []
        for (group, changed), (content, used, topic), vector in zip(
            merged, summaries, vectors, strict=True
        ):
            if changed:
                usage = usage.plus(used)
            memory = Memory(
                id=reflection_id(user_id, [f.id for f in group]),
                user_id=user_id,
                kind=MemoryKind.REFLECTION,
                content=content,
                importance=REFLECTION_IMPORTANCE,
                created_at=now,
                last_accessed_at=now,
                # Reflections never decay (docs/design.md §6): the core category is exempt.
                category=MemoryCategory.CORE,
                source=MemorySource.REFLECTION,
                topic=topic[:TOPIC_LIMIT] or None,
            )
            indexed = IndexedText(embedding=vector, search_text=text.search_text(content))
            items.append((memory, indexed, [f.id for f in group]))
        made, consolidated = await self._store.write(items)
        if made:
            await self._events.memories_added(m for m, _, _ in items)
        return ReflectOutcome(due=True, reflections=made, consolidated=consolidated, usage=usage)
