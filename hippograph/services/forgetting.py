"""The forget use case and job: page through a user's memories, decide, rewrite, commit.

A run reads a page of memories, asks the policy (:mod:`hippograph.forgetting`)
what to do with each, has the ``LLM`` port write the fainter texts (offline by
default), embeds every new text of the page in one batch, and commits the
page in one transaction together with the job's cursor. A dry run does the
same reading and deciding and writes nothing.

Runs as a job (``JobKind.FORGET``) on request (``forget(async: true)``) and
on a schedule (``sweep``, one FUZZ pass per user a day, with a job id derived
from the day so a sweep repeated the same day finds its jobs done). Without
``async`` a request runs the pass itself and answers with the full report:
fine for a pass that changes little; a first pass over a large imported
history is a job's work (docs/forgetting.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Literal, Protocol

from cachetools import LRUCache
from pydantic import BaseModel, ConfigDict

from hippograph import text
from hippograph.auth import Principal
from hippograph.background import in_background
from hippograph.clock import Clock
from hippograph.forget_report import ForgetReport, left_alone, tally
from hippograph.forgetting import (
    Action,
    Applied,
    BatchWrite,
    Decision,
    ForgetPolicy,
    ForgetRequest,
    ForgetRules,
    HardDeleteStrategy,
    RankKey,
    Rewrite,
    decide,
    is_exempt,
    needs_capacity_cutoff,
    with_names,
)
from hippograph.forgetting import Candidate as ForgetCandidate
from hippograph.fuzzing import FuzzRequest, compose, language_of
from hippograph.ids import IdKind, derived_id, new_id, require_id, require_user_id
from hippograph.jobs import Job, JobKind
from hippograph.models import IndexedText, MemoryCategory, MemoryLevel
from hippograph.ports import LLM, Embedder, Usage
from hippograph.retention import Curve, LevelThresholds, RetentionParams, default_speeds
from hippograph.services.job_runner import JobResult
from hippograph.services.jobs import JobService
from hippograph.services.users import UserService, UserStore
from hippograph.settings import ForgettingSettings
from hippograph.together import all_or_none


class ForgetStore(Protocol):
    """Pages of a user's memories and the batches a forget run writes (graph/forgetting.py)."""

    async def candidates(
        self, user_id: str, with_deleted: bool, named: Sequence[str] = ()
    ) -> list[ForgetCandidate]: ...
    async def texts(
        self, user_id: str, ids: Sequence[str]
    ) -> dict[str, tuple[str, str | None]]: ...
    async def capacity_cutoff(
        self, user_id: str, capacity: int, named: Sequence[str] = ()
    ) -> RankKey | None: ...
    async def apply(self, batch: BatchWrite) -> Applied: ...
    async def would_delete(
        self, user_id: str, ids: Sequence[str], gone: Collection[str] = ()
    ) -> set[str]: ...
    async def users(self, after: str, limit: int) -> list[str]: ...


def _took(
    applied: Applied, counts: dict[str, int], cascaded: int, report: ForgetReport
) -> tuple[dict[str, int], int, ForgetReport]:
    """The run's counts, cascade total and report once a page's write has landed:
    memories it kept (changed since they were read) are no longer hard deletions."""
    return (
        left_alone(counts, applied.kept),
        cascaded + applied.cascaded,
        report.without(d.memory_id for d in applied.kept),
    )


Texts = tuple[str, str | None]  # a memory's content and original_content
_FUZZ_AT_ONCE = 8
_INDEX_CACHE = 20_000  # trace and archive texts repeat across pages: embed them once


def rules_from(settings: ForgettingSettings) -> ForgetRules:
    """The policy's rules as the settings give them."""
    speeds = default_speeds() | {
        MemoryCategory.FACT: settings.fact_speed,
        MemoryCategory.EPISODE: settings.episode_speed,
    }
    return ForgetRules(
        fuzz_curve=Curve(settings.fuzz_curve),
        soft_delete_curve=Curve(settings.soft_delete_curve),
        soft_delete_below=settings.soft_delete_below,
        thresholds=LevelThresholds(
            settings.full_above, settings.summary_above, settings.tag_above, settings.trace_above
        ),
        params=RetentionParams(
            ebbinghaus_base=settings.ebbinghaus_base,
            ebbinghaus_strength=settings.ebbinghaus_strength,
            hyperbolic_alpha=settings.hyperbolic_alpha,
            hyperbolic_strength=settings.hyperbolic_strength,
            speeds=speeds,
        ),
        episode_max_age_days=settings.episode_max_age_days,
        fact_importance_floor=settings.fact_importance_floor,
        promote_at=settings.promote_at,
    )


class ForgetJob(BaseModel):
    """A forget pass's work, run inline or as a job: a ``ForgetRequest`` and ``dry_run``.

    Flat, with the field names of the records written before it was typed,
    so those still load; :attr:`request` checks it as a client's request is.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal[JobKind.FORGET] = JobKind.FORGET
    user_id: str
    policy: ForgetPolicy = ForgetPolicy.FUZZ
    strategy: HardDeleteStrategy | None = None
    threshold: float | None = None
    max_age_days: float | None = None
    max_capacity: int | None = None
    memory_ids: tuple[str, ...] = ()
    dry_run: bool = False

    @classmethod
    def of(cls, request: ForgetRequest, dry_run: bool) -> ForgetJob:
        """The work of ``request``."""
        return cls(**asdict(request), dry_run=dry_run)

    @property
    def request(self) -> ForgetRequest:
        """The request (``InvalidInput`` if a stored one no longer makes sense)."""
        return ForgetRequest(**self.model_dump(exclude={"kind", "dry_run"}))


@dataclass(eq=False)
class ForgetService:
    """Forgetting for principals (run or queue a pass) and for the job runner."""

    _store: ForgetStore
    _user_store: UserStore
    _users: UserService
    _embedder: Embedder
    _llm: LLM
    _jobs: JobService
    _clock: Clock
    _settings: ForgettingSettings
    _entities: bool = True  # HIPPOGRAPH_MEMORIZE__ENTITIES: off, no rewrite links any
    _rules: ForgetRules = field(init=False)
    _indexed: LRUCache[str, IndexedText] = field(init=False)

    def __post_init__(self) -> None:
        self._rules = rules_from(self._settings)
        self._indexed = LRUCache(_INDEX_CACHE)

    async def forget(
        self, principal: Principal, request: ForgetRequest, dry_run: bool, run_async: bool
    ) -> ForgetReport | Job:
        """Run a pass now (its report) or queue it (its job), for a user the key may see."""
        require_user_id(request.user_id)
        for index, memory_id in enumerate(request.memory_ids):
            require_id(memory_id, IdKind.MEMORY, f"memoryIds[{index}]")
        user = await self._users.require_user(principal, request.user_id)
        request = replace(request, user_id=user.id)
        if run_async:
            return await self.submit(request, dry_run)
        return await self.run(request, dry_run, self._clock())

    async def submit(self, request: ForgetRequest, dry_run: bool = False, job_id: str = "") -> Job:
        """Queue a pass; the job's counts are its report."""
        job_id = job_id or new_id(IdKind.JOB, self._clock())
        work = ForgetJob.of(request, dry_run)
        return await self._jobs.submit(job_id, [request.user_id], work)

    async def sweep(self) -> list[Job]:
        """Queue today's FUZZ pass for every user (the same day again: the same jobs)."""
        day = self._clock().date().isoformat()
        queued: list[Job] = []
        after = ""
        while users := await self._store.users(after, 1000):
            for user_id in users:
                job_id = derived_id(IdKind.JOB, "forget-sweep", user_id, day)
                queued.append(await self.submit(ForgetRequest(user_id), job_id=job_id))
            after = users[-1]
        return queued

    async def run_job(self, job: Job, work: ForgetJob) -> JobResult:
        """The forget job's handler: a pass as of the submission, from the job's cursor."""
        report = await self.run(work.request, work.dry_run, job.created_at, job)
        return JobResult(counts=dict(report.counts), usage=report.usage)

    async def run(
        self, request: ForgetRequest, dry_run: bool, as_of: datetime, job: Job | None = None
    ) -> ForgetReport:
        """One pass at ``as_of``; a job continues after its last committed page.

        Weights are computed at ``as_of`` (a job's submission), so a job that
        stopped and started again decides every memory as it first would have.
        """
        report = ForgetReport(request, dry_run, as_of, counts=dict(job.progress) if job else {})
        cursor = job.cursor if job else ""
        cutoff: RankKey | None = None
        if needs_capacity_cutoff(request):
            capacity, named = request.max_capacity or 0, request.memory_ids
            cutoff = await self._store.capacity_cutoff(request.user_id, capacity, named)
        with_deleted = request.policy is ForgetPolicy.HARD_DELETE
        name = await self._user_name(request.user_id)
        everyone = await self._store.candidates(request.user_id, with_deleted, request.memory_ids)
        remaining = [c for c in everyone if c.id > cursor]
        size = self._settings.batch_size
        writing = not dry_run or job is not None
        # One page is written while the next is prepared (texts read, fuzzed,
        # embedded): the graph server and the model then share the two cores
        # instead of taking turns. Writes stay in page order, one at a time.
        writer: asyncio.Task[Applied] | None = None
        cascaded = int(report.counts.get("cascaded", 0))
        counts = dict(report.counts)
        # A dry run's nodes that the real run's earlier pages would have
        # deleted by the time it reaches a page (it commits page by page).
        gone: set[str] = set()
        try:
            for start in range(0, len(remaining), size):
                page = remaining[start : start + size]
                decisions = [
                    d
                    for c in page
                    if (d := decide(c, request, self._rules, as_of, cutoff)) is not None
                ]
                decided = {d.memory_id for d in decisions}
                exempt = sum(
                    1 for c in page if is_exempt(c, request.memory_ids) and c.id not in decided
                )
                counts = tally(counts, len(page), exempt, decisions)
                next_cursor = page[-1].id
                if dry_run:
                    # What the real run would delete along provenance too (a
                    # dry run queued as a job writes only its progress), and
                    # leave alone: a memory an earlier page took with it.
                    left = [d for d in decisions if d.memory_id in gone]
                    counts = left_alone(counts, left)
                    decisions = [d for d in decisions if d.memory_id not in gone]
                    hard = [d.memory_id for d in decisions if d.action is Action.HARD_DELETE]
                    deleted = await self._store.would_delete(request.user_id, hard, gone)
                    cascaded += len(deleted - set(hard))
                    gone |= deleted
                if writing:
                    batch, used = await self._batch(request, page, decisions, name, as_of, dry_run)
                    report = replace(report, usage=report.usage.plus(used))
                    if writer is not None:
                        counts, cascaded, report = _took(await writer, counts, cascaded, report)
                        writer = None
                    batch = replace(
                        batch,
                        job_id=job.id if job else None,
                        expected_cursor=cursor,
                        cursor=next_cursor,
                        progress=counts | {"cascaded": cascaded},
                    )
                    if job is not None or _writes(batch):
                        writer = asyncio.ensure_future(self._store.apply(batch))
                report = report.showing(decisions)
                cursor = next_cursor
            if writer is not None:
                counts, cascaded, report = _took(await writer, counts, cascaded, report)
                writer = None
        finally:
            if writer is not None:
                # A failed page stops the run; the page being written still
                # commits or not as a whole, and the job resumes after it.
                await asyncio.gather(writer, return_exceptions=True)
        return replace(report, counts=counts | {"cascaded": cascaded})

    async def _batch(
        self,
        request: ForgetRequest,
        page: Sequence[ForgetCandidate],
        decisions: Sequence[Decision],
        name: str,
        now: datetime,
        dry_run: bool,
    ) -> tuple[BatchWrite, Usage]:
        batch = BatchWrite(user_id=request.user_id, now=now)
        if dry_run:
            return batch, Usage()
        hard = {d.memory_id for d in decisions if d.action is Action.HARD_DELETE}
        moving = [d for d in decisions if d.from_level is not d.to_level]
        moved = {d.memory_id for d in moving}
        texts = await self._store.texts(request.user_id, [d.memory_id for d in moving])
        # A memory gone since the candidates were read has nothing left to rewrite.
        present = [(d, texts[d.memory_id]) for d in moving if d.memory_id in texts]
        rewrites, usage = await self._rewrites(present, name)
        if self._entities:  # off the event loop: three readings of each text
            before = {d.memory_id: current for d, (current, _) in present}
            created = {c.id: c.created_at for c in page}
            rewrites = await in_background(with_names, rewrites, before, created, name)
        batch = replace(
            batch,
            rewrites=rewrites,
            promotions=[d.memory_id for d in decisions if d.promote and d.memory_id not in moved],
            soft_deletes=[d.memory_id for d in decisions if d.action is Action.SOFT_DELETE],
            hard_deletes=[c for c in page if c.id in hard],
            decisions=decisions,
        )
        return batch, usage

    async def _rewrites(
        self, moving: Sequence[tuple[Decision, Texts]], name: str
    ) -> tuple[list[Rewrite], Usage]:
        gate = asyncio.Semaphore(_FUZZ_AT_ONCE)

        async def content(
            decision: Decision, text_now: tuple[str, str | None]
        ) -> tuple[str, str, Usage]:
            current, kept = text_now
            original = kept or current
            language = language_of(original)
            if decision.to_level is MemoryLevel.FULL:
                return original, original, Usage()
            request = FuzzRequest(
                text=original, level=decision.to_level, language=language, user_name=name
            )
            async with gate:
                answer = await self._llm.fuzz(request)
            return compose(decision.to_level, original, answer, language), original, answer.usage

        texts = await all_or_none(content(d, row) for d, row in moving)
        usage = Usage()
        for _, _, used in texts:
            usage = usage.plus(used)
        # A level whose text is the one the memory holds keeps its vector and
        # tokens: nothing to embed, and no index entry to replace.
        pairs = [
            (d, current, new, original)
            for (d, (current, _)), (new, original, _) in zip(moving, texts, strict=True)
        ]
        indexed = await self._index([new for _, current, new, _ in pairs if new != current])
        rewrites = [
            Rewrite(
                memory_id=d.memory_id,
                from_level=d.from_level,
                to_level=d.to_level,
                content=new,
                original_content=original,
                indexed=None if new == current else indexed[new],
                promote=d.promote,
            )
            for d, current, new, original in pairs
        ]
        return rewrites, usage

    async def _index(self, texts: Sequence[str]) -> dict[str, IndexedText]:
        """Vector and tokens of the distinct ``texts``, from the cache where it has them."""
        found: dict[str, IndexedText] = {}
        missing: list[str] = []
        for t in dict.fromkeys(texts):
            hit = self._indexed.get(t)
            if hit is None:
                missing.append(t)
            else:
                found[t] = hit
        if missing:
            vectors = await self._embedder.embed(missing)
            for t, vector in zip(missing, vectors, strict=True):
                # Answered from ``found``: a batch larger than the cache may evict its own texts.
                found[t] = IndexedText(embedding=vector, search_text=text.search_text(t))
                self._indexed[t] = found[t]
        return found

    async def _user_name(self, user_id: str) -> str:
        users = await self._user_store.get_users([user_id])
        return users[user_id].name if user_id in users else ""


def _writes(batch: BatchWrite) -> bool:
    # Every change a batch carries comes from one of its decisions; decisions
    # alone (their memories all gone since the page was read) are written too,
    # so the write reports them kept.
    return bool(batch.decisions)
