"""Memorize: conversations in, MemUnits, memories and facts out (docs/design.md §5).

Messages are stored first, in their own transaction, so nothing a client
sent is lost whatever happens next. The rest works on the session's
*unprocessed* messages (those no MemUnit is made of yet): a replay finds none
and does nothing, a run cut short is finished by the next one, and with
``flush`` false the open tail of a conversation waits for more messages
before it is cut into a unit.

Per request: one embedding batch for the messages, segmentation, then a few units at
a time: their extractions (concurrent, through the ``LLM`` port), embedding and write.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import reduce
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from hippograph.auth import Principal
from hippograph.background import in_background
from hippograph.clock import Clock
from hippograph.errors import InvalidInput, Unavailable
from hippograph.events import NO_EVENTS, Announcer
from hippograph.extraction.assemble import UnitContext, UnitDraft, assemble, merged, unit_messages
from hippograph.extraction.schema import ExtractionRequest, UnitMessage
from hippograph.extraction.segment import SegmentRules, segment
from hippograph.ids import IdKind, derived_id, require_client_id, require_user_id
from hippograph.jobs import Job, JobKind
from hippograph.models import (
    AddedMessages,
    IndexedText,
    IngestBatch,
    IngestCounts,
    MemoryKind,
    Message,
)
from hippograph.ports import LLM, Embedder, ModelFailed, Usage
from hippograph.services.job_runner import JobResult
from hippograph.services.jobs import JobService
from hippograph.services.messages import MessageInput, MessageService
from hippograph.services.said_before import SaidBefore, fold_repeats
from hippograph.services.users import UserService, UserStore
from hippograph.settings import LimitSettings, MemorizeSettings
from hippograph.together import all_or_none
from hippograph.turns import turn_content


class IngestStore(Protocol):
    """Memorize's reads and its one write (graph/ingest.py)."""

    async def unprocessed(self, session_id: str, limit: int) -> list[Message]: ...
    async def previous(self, session_id: str, seq: int) -> Message | None: ...
    async def profiles(self, user_ids: Sequence[str], limit: int) -> dict[str, dict[str, str]]: ...
    async def write(self, batch: IngestBatch) -> IngestCounts: ...


log = logging.getLogger(__name__)
_SOURCE_TYPE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_MAX_USERS = 20
# MemUnits (up to twelve messages each) written per transaction
_UNITS_PER_WRITE = 4
_MAX_UNPROCESSED = 5000
_EXTRACTIONS_AT_ONCE = 4
# Profile values shown to an extractor per run (newest first, all users together).
_PROFILE_SHOWN = 40


@dataclass(frozen=True, slots=True)
class MemorizeRequest:
    """What a client asks memorize to remember."""

    user_ids: tuple[str, ...]
    session_id: str
    messages: tuple[MessageInput, ...]
    history: tuple[MessageInput, ...] = ()
    group_id: str | None = None
    source_type: str = "conversation"
    run_async: bool | None = None  # None: decided by size
    flush: bool = True


class HistoryLine(BaseModel):
    """A message given as context only (``history``): never stored, never a unit."""

    model_config = ConfigDict(frozen=True)

    speaker: str
    content: str
    ts: datetime


class MemorizeJob(BaseModel):
    """One memorize run's work, run inline or as a job: the same value either way.

    Its stored form (JSON on the job record) keeps the field names of the
    records written before it was typed, so those still load.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal[JobKind.MEMORIZE] = JobKind.MEMORIZE
    session_id: str
    user_ids: tuple[str, ...]
    group_id: str | None = None
    source_type: str = "conversation"
    flush: bool = True
    history: tuple[HistoryLine, ...] = ()

    def job_id(self, message_ids: Sequence[str]) -> str:
        """This work on these messages as a job: a replay finds its job, and the same
        messages for other users (group, source, history) are a job of their own."""
        return derived_id(IdKind.JOB, "memorize", *message_ids, self.model_dump_json())


@dataclass(frozen=True, slots=True)
class MemorizeCounts:
    """What one run made."""

    messages: int = 0
    memunits: int = 0
    memories: int = 0
    superseded: int = 0
    pending: int = 0
    usage: Usage = field(default_factory=Usage)

    def as_dict(self) -> dict[str, int]:
        """The counts as a job records them."""
        return {
            "messages": self.messages,
            "memunits": self.memunits,
            "memories": self.memories,
            "superseded": self.superseded,
            "pending": self.pending,
        }


@dataclass(frozen=True, slots=True)
class MemorizeOutcome:
    """The stored messages, and either what was made or the job that will make it."""

    added: AddedMessages
    counts: MemorizeCounts | None = None
    job: Job | None = None


def _language(messages: Sequence[Message]) -> str:
    sample = "".join(m.content for m in messages[:20])
    return "zh" if len(_CJK.findall(sample)) > 0.2 * max(1, len(sample)) else "en"


@dataclass(eq=False)
class MemorizeService:
    """The memorize use case and its job."""

    _messages: MessageService
    _users: UserService
    _user_store: UserStore
    _ingest: IngestStore
    _embedder: Embedder
    _llm: LLM
    _jobs: JobService
    _clock: Clock
    _settings: MemorizeSettings
    _limits: LimitSettings
    _after_facts: Callable[[str], Awaitable[object]] | None = None
    _events: Announcer = NO_EVENTS
    _said_before: SaidBefore | None = None  # None: only a call's own repeats fold
    _rules: SegmentRules = field(init=False)
    _restatement: float = field(init=False)

    def __post_init__(self) -> None:
        self._restatement = (
            self._settings.restatement
            if self._settings.restatement is not None
            else self._embedder.scale.restatement
        )
        self._rules = SegmentRules(
            max_gap=timedelta(minutes=self._settings.max_gap_minutes),
            shift_threshold=(
                self._settings.topic_shift
                if self._settings.topic_shift is not None
                else self._embedder.scale.topic_shift
            ),
            min_size=self._settings.min_unit,
            max_size=max(self._settings.min_unit, self._settings.max_unit),
        )

    async def memorize(self, principal: Principal, request: MemorizeRequest) -> MemorizeOutcome:
        """Store the messages, then build memories now or in a job."""
        user_ids = await self._check_users(principal, request.user_ids)
        session = await self._users.require_session(principal, request.session_id, "sessionId")
        if session.user_id not in user_ids:
            raise InvalidInput(
                f"session {session.id!r} belongs to user {session.user_id!r}, "
                "who must be among userIds",
                "userIds",
            )
        if not _SOURCE_TYPE.fullmatch(request.source_type):
            raise InvalidInput("sourceType must be 1-32 characters of a-z, 0-9 and _", "sourceType")
        if request.group_id is not None:
            require_client_id(request.group_id, "groupId")
        history = (
            self._messages.build(session.id, session.user_id, request.history, name="history")
            if request.history
            else []
        )
        added = await self._messages.add_messages(principal, session.id, request.messages)
        work = MemorizeJob(
            session_id=session.id,
            user_ids=user_ids,
            group_id=request.group_id,
            source_type=request.source_type,
            flush=request.flush,
            history=tuple(
                HistoryLine(speaker=m.speaker, content=m.content, ts=m.ts) for m in history
            ),
        )
        run_async = request.run_async
        if run_async is None:
            run_async = len(request.messages) > self._settings.async_threshold
        if run_async:
            job_id = work.job_id([m.id for m in added.messages])
            job = await self._jobs.submit(job_id, user_ids, work)
            return MemorizeOutcome(added=added, job=job)
        counts = await self.process(work)
        return MemorizeOutcome(added=added, counts=counts)

    async def _check_users(self, principal: Principal, user_ids: Sequence[str]) -> tuple[str, ...]:
        if not 1 <= len(user_ids) <= _MAX_USERS:
            raise InvalidInput(f"userIds must name 1 to {_MAX_USERS} users", "userIds")
        unique = tuple(dict.fromkeys(user_ids))
        for index, user_id in enumerate(unique):
            require_user_id(user_id, f"userIds[{index}]")
            await self._users.require_user(principal, user_id)
        return unique

    async def run_job(self, work: MemorizeJob) -> JobResult:
        """The memorize job's handler: :meth:`process`, its counts as the job records them."""
        counts = await self.process(work)
        return JobResult(counts=counts.as_dict(), usage=counts.usage)

    async def process(self, work: MemorizeJob) -> MemorizeCounts:
        """Build the memories a session's unprocessed messages hold (the job's work)."""
        session_id = work.session_id
        todo = await self._ingest.unprocessed(session_id, _MAX_UNPROCESSED)
        if not todo:
            return MemorizeCounts()
        users = await self._user_store.get_users(list(work.user_ids))
        names = {u: users[u].name if u in users else u for u in work.user_ids}
        before = await self._ingest.previous(session_id, todo[0].seq)
        texts = [turn_content(m) for m in todo] + ([turn_content(before)] if before else [])
        vectors = await self._embedder.embed(texts)
        prior = (before, vectors[-1]) if before else None
        vectors = vectors[: len(todo)]
        ranges = segment([m.ts for m in todo], vectors, self._rules)
        pending = 0
        if not work.flush and ranges:
            last = ranges[-1]
            quiet = self._clock() - todo[-1].ts > self._rules.max_gap
            if len(last) < self._rules.max_size and not quiet:
                ranges, pending = ranges[:-1], len(last)
        # A speaker saying the same again, here or in an earlier call, adds a source.
        turns = {m.id: (m.speaker, v) for m, v in zip(todo, vectors, strict=True)}
        memunits = memories = superseded = 0
        usage = Usage()
        # A few units at a time, extracted then written in a transaction: one for
        # a 150-message call lost every race to other tenants' small writes
        # (docs/decisions/2026-11-26-memorize-under-other-writes.md), and a job
        # stopped by its timeout keeps what it wrote. Later parts find it.
        for start in range(0, len(ranges), _UNITS_PER_WRITE):
            part = ranges[start : start + _UNITS_PER_WRITE]
            try:
                drafts = await self._extract_all(todo, vectors, part, start, prior, names, work)
            except ModelFailed as failed:
                failed.usage = usage.plus(failed.usage)  # the parts written before it too
                raise
            units = [d for d, _ in drafts]
            batch = await self._batch(
                await fold_repeats(units, turns, self._restatement, self._said_before)
            )
            written = await self._ingest.write(batch)
            memunits += written.memunits
            memories += written.memories
            superseded += written.superseded
            usage = reduce(Usage.plus, (used for _, used in drafts), usage)
            if written.created:  # not the ones that existed: a repeat is no news
                await self._events.memories_added(written.created)
                await self._reflect_later(batch)
        return MemorizeCounts(
            messages=sum(len(r) for r in ranges),
            memunits=memunits,
            memories=memories,
            superseded=superseded,
            pending=pending,
            usage=usage,
        )

    async def _reflect_later(self, batch: IngestBatch) -> None:
        """Queue a reflect run for every user who got facts (the job decides if it is due)."""
        if self._after_facts is None:
            return
        reflective = (MemoryKind.SEMANTIC, MemoryKind.PROFILE)
        for user_id in dict.fromkeys(
            m.user_id for m, _, _ in batch.memories if m.kind in reflective
        ):
            try:
                await self._after_facts(user_id)
            except Unavailable as exc:
                # The memories are written; the scheduled sweep will find these facts.
                log.warning("could not queue reflection for %s: %s", user_id, exc.message)

    async def _extract_all(
        self,
        todo: Sequence[Message],
        vectors: Sequence[Sequence[float]],
        ranges: Sequence[range],
        first: int,
        before: tuple[Message, Sequence[float]] | None,
        names: dict[str, str],
        work: MemorizeJob,
    ) -> list[tuple[UnitDraft, Usage]]:
        gate = asyncio.Semaphore(_EXTRACTIONS_AT_ONCE)
        language = _language(todo)
        # Only a model reads them; the offline extractor has no use for them.
        profiles = (
            await self._ingest.profiles(work.user_ids, _PROFILE_SHOWN)
            if self._llm.name != "offline"
            else {}
        )
        given = work.history
        history = tuple(
            UnitMessage(index=i - len(given), speaker=h.speaker, text=h.content, ts=h.ts)
            for i, h in enumerate(given)
        )

        async def one(index: int, span: range) -> tuple[UnitDraft, Usage]:
            messages = todo[span.start : span.stop]
            unit_vectors = vectors[span.start : span.stop]
            previous = (todo[span.start - 1], vectors[span.start - 1]) if span.start else before
            earlier = todo[max(0, span.start - 4) : span.start]
            context = history if index == 0 else unit_messages(earlier, -len(earlier))
            request = ExtractionRequest(
                messages=unit_messages(messages),
                history=context,
                users=names,
                language=language,
                profiles=profiles,
            )
            async with gate:
                extraction = await self._llm.extract(request, unit_vectors)
            # Pure and CPU-bound (entities, ids, vectors): off the event loop,
            # so the requests it serves meanwhile are not held up.
            draft = await in_background(
                assemble,
                extraction,
                UnitContext(
                    messages=messages,
                    vectors=unit_vectors,
                    before=previous,
                    user_names=names,
                    group_id=work.group_id,
                    source_type=work.source_type or "conversation",
                    learned_at=self._clock(),
                    context_weight=self._settings.turn_context_weight,
                    entities=self._settings.entities,
                ),
            )
            return draft, extraction.usage

        return await all_or_none(one(i, r) for i, r in enumerate(ranges, start=first))

    async def _batch(self, drafts: Sequence[UnitDraft]) -> IngestBatch:
        """Embed the new sentences (one batch) and lay out the write."""
        # Across units too: a fact repeated later in the session is one memory.
        memories = merged([m for draft in drafts for m in draft.memories])
        to_embed = [m.embed_text for m in memories if m.embed_text is not None]
        embedded = iter(await self._embedder.embed(to_embed) if to_embed else [])
        items = []
        for m in memories:
            vector = m.vector if m.vector is not None else next(embedded)
            items.append(
                (m.memory, IndexedText(embedding=vector, search_text=m.search_text), m.sources)
            )
        units = [
            (d.unit, IndexedText(embedding=d.vector, search_text=d.search_text), d.message_ids)
            for d in drafts
        ]
        mentions = list(
            {(m.label, m.node_id): m for draft in drafts for m in draft.mentions}.values()
        )
        return IngestBatch(units=units, memories=items, mentions=mentions)
