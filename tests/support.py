"""Small builders of domain records for tests."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph.store import GraphStore
from hippograph.ids import IdKind, new_id
from hippograph.jobs import Job, JobStatus
from hippograph.models import (
    IndexedText,
    Memory,
    MemoryKind,
    MemUnit,
    Message,
    Role,
    Session,
    Sources,
    User,
)
from hippograph.scoring import Candidate
from hippograph.services.reflection import ReflectJob
from hippograph.text import search_text

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def unit_vector(seed: int, dimensions: int = 384) -> list[float]:
    """A deterministic random unit vector."""
    rng = random.Random(seed)
    raw = [rng.gauss(0.0, 1.0) for _ in range(dimensions)]
    norm = math.sqrt(sum(x * x for x in raw))
    return [x / norm for x in raw]


def memory(
    user_id: str,
    content: str,
    *,
    at: datetime = T0,
    kind: MemoryKind = MemoryKind.SEMANTIC,
    importance: float = 0.5,
    **fields: object,
) -> Memory:
    """A memory record with a fresh id."""
    return Memory(
        id=new_id(IdKind.MEMORY, at),
        user_id=user_id,
        kind=kind,
        content=content,
        importance=importance,
        created_at=at,
        last_accessed_at=at,
        **fields,  # type: ignore[arg-type]
    )


def candidate(
    id_: str,
    *,
    created_at: datetime = T0,
    last_accessed_at: datetime = T0,
    importance: float = 0.5,
    **fields: Any,
) -> Candidate:
    """A search candidate (made and last read at T0 unless given) with ``fields`` as given."""
    return Candidate(id_, importance, created_at, last_accessed_at, **fields)


def indexed(content: str, seed: int) -> IndexedText:
    """Index data with a random vector (for tests where meaning does not matter)."""
    return IndexedText(embedding=unit_vector(seed), search_text=search_text(content))


async def add_user(store: GraphStore, user_id: str, name: str | None = None) -> User:
    """Create a user in ``store``."""
    user = User(id=user_id, name=name or user_id.title(), created_at=T0)
    await store.users.create_user(user)
    return user


async def add_session(store: GraphStore, user_id: str, at: datetime = T0) -> Session:
    """Create a session of ``user_id`` in ``store``."""
    session = Session(id=new_id(IdKind.SESSION, at), user_id=user_id, title="chat", started_at=at)
    assert await store.users.create_session(session)
    return session


def message(session: Session, content: str, *, at: datetime = T0, speaker: str = "Ann") -> Message:
    """A message record of ``session`` with a fresh id."""
    return Message(
        id=new_id(IdKind.MESSAGE, at),
        session_id=session.id,
        user_id=session.user_id,
        speaker=speaker,
        role=Role.USER,
        content=content,
        ts=at,
        seq=0,
    )


async def conversation(
    store: GraphStore, user_id: str, texts: list[str]
) -> tuple[Session, list[Message]]:
    """A user with a session holding ``texts`` as messages, one minute apart."""
    await add_user(store, user_id)
    session = await add_session(store, user_id)
    messages = [
        message(session, text, at=T0 + timedelta(minutes=i)) for i, text in enumerate(texts)
    ]
    added = await store.messages.append(session.id, messages)
    return session, list(added.messages)


async def add_memunit(
    store: GraphStore,
    session: Session,
    messages: list[Message],
    seed: int = 0,
    guests: Sequence[str] = (),
) -> MemUnit:
    """A MemUnit derived from ``messages``, shared with ``guests`` (a group conversation)."""
    unit = MemUnit(
        id=new_id(IdKind.MEMUNIT, T0),
        user_ids=(session.user_id, *guests),
        session_id=session.id,
        summary="summary",
        narrative="narrative",
        subject="subject",
        ts=T0,
    )
    await store.memunits.add(unit, indexed(unit.summary, seed), [m.id for m in messages])
    return unit


NO_SOURCES = Sources()


async def derivation_chain(store: GraphStore) -> tuple[Memory, Memory, MemUnit, list[Message]]:
    """ann's three messages, a MemUnit of the first two, a fact derived from the unit and a
    summary derived from the fact and the third message: the summary, fact, unit, messages."""
    session, messages = await conversation(store, "ann", ["one", "two", "three"])
    unit = await add_memunit(store, session, messages[:2])
    fact = await add_memory(store, memory("ann", "fact"), sources=Sources(memunit_ids=(unit.id,)))
    summary = await add_memory(
        store,
        memory("ann", "summary"),
        sources=Sources(memory_ids=(fact.id,), message_ids=(messages[2].id,)),
    )
    return summary, fact, unit, messages


async def add_memory(
    store: GraphStore, record: Memory, seed: int = 0, sources: Sources = NO_SOURCES
) -> Memory:
    """Store ``record`` with a random vector."""
    await store.memories.add(record, indexed(record.content, seed), sources)
    return record


async def queued_job(store: GraphStore, at: datetime = T0) -> Job:
    """A reflect job of ann's, submitted (queued), with an id of moment ``at``."""
    job = Job(
        id=new_id(IdKind.JOB, at),
        status=JobStatus.QUEUED,
        user_ids=("ann",),
        params=ReflectJob(user_id="ann", force=True),
        created_at=T0,
    )
    await store.jobs.submit(job)
    return job


def record_calls(monkeypatch: pytest.MonkeyPatch, cls: type, names: Sequence[str]) -> list[str]:
    """The names of ``cls``'s methods ``names`` as they are called, in order (they still run)."""
    calls: list[str] = []
    for name in names:
        method: Callable[..., Any] = getattr(cls, name)

        def recorded(*args: Any, _name: str = name, _method: Any = method, **kw: Any) -> Any:
            calls.append(_name)
            return _method(*args, **kw)

        monkeypatch.setattr(cls, name, recorded)
    return calls


async def race(
    *writes: Awaitable[object], refused: tuple[type[Exception], ...] = ()
) -> list[object]:
    """Run ``writes`` at once (each on its own connection, as processes race) and
    answer each one's result, or its error where it is one of ``refused`` (a
    writer told no); any other error is raised."""
    outcomes = await asyncio.gather(*writes, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException) and not isinstance(outcome, refused):
            raise outcome
    return list(outcomes)
