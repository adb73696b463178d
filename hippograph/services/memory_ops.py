"""An agent's memory operations (note 004): ADD, UPDATE:id, BOOST:id, DELETE:id, SKIP.

The whole batch is checked before anything is written (unknown, foreign,
deleted or superseded ids, the same memory touched twice, missing content),
new texts are embedded in one batch, and the batch is applied in one
transaction: an agent's decision is applied whole or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from hippograph import text
from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.entities import written_mentions
from hippograph.errors import Conflict, InvalidInput, NotFound
from hippograph.events import NO_EVENTS, Announcer
from hippograph.ids import IdKind, new_id, require_client_id, require_id
from hippograph.models import (
    DEFAULT_CATEGORY,
    IndexedText,
    Memory,
    MemoryKind,
    MemoryOpsPlan,
    MemorySource,
    User,
)
from hippograph.ports import Embedder
from hippograph.querytime import dated
from hippograph.services.memories import client_memory_id, require_same_content
from hippograph.services.memory_store import MemoryStore
from hippograph.services.users import UserService
from hippograph.settings import LimitSettings
from hippograph.validation import require_count, require_fraction, require_text
from hippograph.versions import Revision, next_version


class MemoryOpsStore(Protocol):
    """Applies a batch of memory operations in one transaction (graph/memory_ops.py)."""

    async def apply(
        self, plan: MemoryOpsPlan, now: datetime, *, importances: Mapping[str, float] | None = None
    ) -> None:
        """Apply ``plan``, and set ``importances`` (memory id -> new importance) in place."""
        ...


BOOST = 0.3  # note 004: a re-confirmed memory gains this much importance, capped at 1
_MAX_OPS = 100


class MemoryOpKind(StrEnum):
    """What one operation does."""

    ADD = "add"
    UPDATE = "update"
    BOOST = "boost"
    DELETE = "delete"
    SKIP = "skip"


@dataclass(frozen=True, slots=True)
class MemoryOp:
    """One operation as an agent sends it."""

    op: MemoryOpKind
    id: str | None = None
    content: str | None = None
    kind: MemoryKind | None = None
    importance: float | None = None
    hard: bool = False
    client_id: str | None = None  # ADD: a retried batch finds the memory, adds nothing


@dataclass(frozen=True, slots=True)
class MemoryOpOutcome:
    """What one operation did: the memory it made or changed (none for SKIP)."""

    op: MemoryOpKind
    memory_id: str | None
    superseded_id: str | None = None


@dataclass(eq=False)
class MemoryOpsService:
    """Validates, plans and applies batches of memory operations."""

    _memories: MemoryStore
    _ops: MemoryOpsStore
    _users: UserService
    _embedder: Embedder
    _clock: Clock
    _limits: LimitSettings
    _events: Announcer = NO_EVENTS
    # Whether added and successor memories get entity mentions (memorize's setting).
    _entities: bool = False

    async def apply(
        self, principal: Principal, user_id: str, ops: Sequence[MemoryOp]
    ) -> list[MemoryOpOutcome]:
        """Apply ``ops`` to a visible user's memories, all in one transaction."""
        user = await self._users.require_user(principal, user_id)
        require_count(len(ops), "ops", 1, _MAX_OPS)
        return await self._apply(user, ops)

    async def _apply(
        self, user: User, ops: Sequence[MemoryOp], *, again: bool = False
    ) -> list[MemoryOpOutcome]:
        """``apply`` for a user it found; ``again``: planned anew after a lost race."""
        targets = await self._targets(user.id, ops)
        now = self._clock()
        texts = [
            require_text(op.content or "", f"ops[{i}].content", self._limits.max_content_length)
            if op.op in (MemoryOpKind.ADD, MemoryOpKind.UPDATE)
            else None
            for i, op in enumerate(ops)
        ]
        for i, op in enumerate(ops):
            _require_fields_it_takes(op, i)
            if op.importance is not None:
                require_fraction(op.importance, f"ops[{i}].importance")
            if op.kind is MemoryKind.REFLECTION:
                raise InvalidInput("reflections are made by the reflect job", f"ops[{i}].kind")
        replayed = await self._replayed(user.id, ops, texts)
        # A replayed ADD writes nothing, and an UPDATE to the same text makes
        # no version: neither text needs embedding.
        versioned = [
            None
            if (op.op is MemoryOpKind.ADD and op.client_id in replayed)
            or (op.op is MemoryOpKind.UPDATE and t == targets[str(op.id)].content)
            else t
            for op, t in zip(ops, texts, strict=True)
        ]
        to_embed = [t for t in versioned if t is not None]
        vectors = iter(await self._embedder.embed(to_embed) if to_embed else [])
        adds: list[tuple[Memory, IndexedText]] = []
        supersedes: list[tuple[Memory, Memory, IndexedText]] = []
        importances: dict[str, float] = {}
        boosts: list[str] = []
        soft: list[str] = []
        hard: list[str] = []
        outcomes: list[MemoryOpOutcome] = []
        for op, content in zip(ops, versioned, strict=True):
            indexed = (
                IndexedText(embedding=next(vectors), search_text=text.search_text(content))
                if content is not None
                else None
            )
            if op.op is MemoryOpKind.ADD and op.client_id in replayed:
                outcomes.append(MemoryOpOutcome(op.op, replayed[op.client_id]))
            elif op.op is MemoryOpKind.ADD and indexed is not None and content is not None:
                kind = op.kind or MemoryKind.SEMANTIC
                memory = dated(
                    Memory(
                        id=(
                            client_memory_id(user.id, op.client_id)
                            if op.client_id
                            else new_id(IdKind.MEMORY, now)
                        ),
                        user_id=user.id,
                        kind=kind,
                        content=content,
                        importance=op.importance if op.importance is not None else 0.5,
                        created_at=now,
                        last_accessed_at=now,
                        category=DEFAULT_CATEGORY[kind],
                        source=MemorySource.AGENT,
                    )
                )
                adds.append((memory, indexed))
                outcomes.append(MemoryOpOutcome(op.op, memory.id))
            elif op.op is MemoryOpKind.UPDATE and indexed is not None and content is not None:
                old = targets[str(op.id)]
                revision = Revision(content, op.importance, source=MemorySource.AGENT)
                successor = next_version(old, revision, new_id(IdKind.MEMORY, now), now)
                supersedes.append((old, successor, indexed))
                outcomes.append(MemoryOpOutcome(op.op, successor.id, old.id))
            elif op.op is MemoryOpKind.UPDATE:
                # The same text: no new version. A new importance is set in
                # place, as updateMemory sets it (hippograph/versions.py).
                old = targets[str(op.id)]
                if op.importance is not None and op.importance != old.importance:
                    importances[old.id] = op.importance
                outcomes.append(MemoryOpOutcome(op.op, old.id))
            elif op.op is MemoryOpKind.BOOST:
                boosts.append(str(op.id))
                outcomes.append(MemoryOpOutcome(op.op, op.id))
            elif op.op is MemoryOpKind.DELETE:
                (hard if op.hard else soft).append(str(op.id))
                outcomes.append(MemoryOpOutcome(op.op, op.id))
            else:
                outcomes.append(MemoryOpOutcome(MemoryOpKind.SKIP, op.id))
        written = [m for m, _ in adds] + [successor for _, successor, _ in supersedes]
        mentions = written_mentions(written, user.name) if self._entities else []
        plan = MemoryOpsPlan(adds, supersedes, boosts, soft, hard, BOOST, mentions)
        try:
            await self._ops.apply(plan, now, importances=importances)
        except Conflict:
            # Two sends of one batch raced (a retry while the first was still
            # being written): both found no memory of a client id, and this
            # one's CREATE of it failed, rolling the whole batch back. Planned
            # anew, it finds that memory (its content checked) and adds
            # nothing twice, as addMemory answers the same race. A Conflict
            # that no new memory of its client ids explains is not that race.
            found = await self._replayed(user.id, ops, texts)
            if again or found.keys() <= replayed.keys():
                raise
            return await self._apply(user, ops, again=True)
        await self._events.memories_added(written)
        return outcomes

    async def _replayed(
        self, user_id: str, ops: Sequence[MemoryOp], texts: Sequence[str | None]
    ) -> dict[str, str]:
        """Client ids of ADD ops a previous send already applied, and their memories."""
        wanted: dict[str, tuple[str, str | None]] = {}
        for i, op in enumerate(ops):
            if op.client_id is None:
                continue
            field = f"ops[{i}].clientId"
            require_client_id(op.client_id, field)
            if op.client_id in wanted:
                raise InvalidInput(f"clientId {op.client_id!r} is used twice in this batch", field)
            wanted[op.client_id] = (client_memory_id(user_id, op.client_id), texts[i])
        if not wanted:
            return {}
        found = await self._memories.get_memories([memory_id for memory_id, _ in wanted.values()])
        return {
            client_id: require_same_content(existing, content or "", client_id).id
            for client_id, (memory_id, content) in wanted.items()
            if (existing := found.get(memory_id)) is not None
        }

    async def _targets(self, user_id: str, ops: Sequence[MemoryOp]) -> dict[str, Memory]:
        """Check every id an operation names; the memories they name, by id."""
        needs_id = {MemoryOpKind.UPDATE, MemoryOpKind.BOOST, MemoryOpKind.DELETE}
        named: dict[str, int] = {}
        for i, op in enumerate(ops):
            field = f"ops[{i}].id"
            # A SKIP may name the memory it left alone, for the agent's log:
            # checked as any id is, so what comes back is the user's memory.
            if op.op in needs_id or (op.op is MemoryOpKind.SKIP and op.id is not None):
                if op.id is None:
                    raise InvalidInput(f"{op.op.name} needs the id of a memory", field)
                require_id(op.id, IdKind.MEMORY, field)
                if op.id in named:
                    raise InvalidInput(
                        f"memory {op.id!r} is also changed by ops[{named[op.id]}]", field
                    )
                named[op.id] = i
            elif op.op is MemoryOpKind.ADD and op.id is not None:
                raise InvalidInput("ADD makes a new memory and takes no id", field)
        found = await self._memories.get_memories(list(named))
        now = self._clock()
        for memory_id, index in named.items():
            op = ops[index]
            memory = found.get(memory_id)
            # A soft-deleted memory may still be deleted for good (purged).
            purge = op.op is MemoryOpKind.DELETE and op.hard
            if memory is None or memory.user_id != user_id:
                raise NotFound("memory", memory_id)
            if memory.deleted_at is not None and not purge:
                raise NotFound("memory", memory_id)
            current = memory.valid_to is None or memory.valid_to > now
            if op.op in (MemoryOpKind.UPDATE, MemoryOpKind.BOOST) and not current:
                # A superseded version is history: boosting it would leave the
                # current one as it was (updateMemory refuses the same).
                done = "updated" if op.op is MemoryOpKind.UPDATE else "boosted"
                raise InvalidInput(f"only a current memory can be {done}", f"ops[{index}].id")
        return found


# The fields each operation reads besides ``op`` and ``id``: one it does not
# read is refused rather than dropped without a word (a BOOST with an
# importance would look like a set importance that never happened).
_TAKES = {
    MemoryOpKind.ADD: {"content", "kind", "importance", "clientId"},
    MemoryOpKind.UPDATE: {"content", "importance"},
    MemoryOpKind.BOOST: set(),
    MemoryOpKind.DELETE: {"hard"},
    MemoryOpKind.SKIP: set(),
}


def _require_fields_it_takes(op: MemoryOp, index: int) -> None:
    """``InputError`` naming the first field ``op`` was given but does not read."""
    given = {
        "content": op.content is not None,
        "kind": op.kind is not None,
        "importance": op.importance is not None,
        "clientId": op.client_id is not None,
        "hard": op.hard,
    }
    for field, present in given.items():
        if present and field not in _TAKES[op.op]:
            raise InvalidInput(f"{op.op.name} takes no {field}", f"ops[{index}].{field}")
