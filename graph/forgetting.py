"""Forgetting in the graph: pages of a user's memories, and one transaction per batch.

A run pages through a user's memories in id order. Each batch's writes and
the run's cursor (the last id it covered, on the Job node) commit together,
so a run that stops resumes after its last committed batch and never applies
one twice: a batch whose expected cursor is no longer the job's is refused.
Every write re-checks what the decision was made on (the memory's level, that
it is not deleted yet; for a hard delete, everything the policy read of it),
so a memory changed meanwhile is left alone.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction

from graph.cascade import delete_planned, memory_closure
from graph.consolidation import release_summarized
from graph.cypher import cypher, locked, provenance_write
from graph.driver import GraphDriver, fetch
from graph.entities import unlink_memories, write_mentions
from graph.records import float32, parse_utc, to_utc
from hippograph.cascade import MAX_CASCADE_NODES, DeletionReport, deletion_report, too_large
from hippograph.errors import Conflict
from hippograph.forget_report import left_alone
from hippograph.forgetting import Applied, BatchWrite, Candidate, RankKey, Rewrite
from hippograph.models import LevelChange, MemoryCategory, MemoryKind, MemoryLevel, Mentions

# Everything the policy needs and nothing it does not (no texts, no vectors):
# a pass reads every memory of the user but rewrites only those that change.
# Row: id, kind, category, level, importance, created_at, last_accessed_at,
# access_count, deleted. They come back as ONE record holding a list of rows,
# with datetimes as text: the driver decodes each record and each temporal
# value in Python, and 100,000 records of maps took most of a pass that
# changed nothing on Neo4j (18 s, ArcadeDB 7.5 s; bench.forget).
_CANDIDATE = (
    "collect([m.id, m.kind, m.category, m.level, m.importance, toString(m.created_at),"
    " toString(coalesce(m.last_accessed_at, m.created_at)), m.access_count,"
    " m.deleted_at IS NOT NULL]) AS rows"
)
CANDIDATES = cypher(
    "forgetting.CANDIDATES",
    "MATCH (m:Memory {user_id: $user_id}) WHERE $with_deleted OR m.deleted_at IS NULL "
    "RETURN " + _CANDIDATE,
)
CANDIDATES_NAMED = cypher(
    "forgetting.CANDIDATES_NAMED",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) "
    "WHERE m.user_id = $user_id AND ($with_deleted OR m.deleted_at IS NULL) "
    "RETURN " + _CANDIDATE,
)
# A hard delete changes what it read before it checks that they are still
# as read: a boost or recall committed between an unlocked check and the
# delete (another process) would be deleted with them (graph/cypher.py).
CLAIM_READ = cypher(
    "forgetting.CLAIM_READ",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) "
    + provenance_write("m")
    + "RETURN count(m) AS claimed",
)
TEXTS = cypher(
    "forgetting.TEXTS",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) WHERE m.user_id = $user_id "
    "RETURN collect([m.id, m.content, m.original_content]) AS rows",
)
# The first memory over capacity in keep order; the exempt ones do not count
# (unless named: then only the named ones do).
_KEEP_ORDER = (
    "WITH m ORDER BY CASE WHEN m.deleted_at IS NULL THEN 0 ELSE 1 END, m.importance DESC, "
    "m.created_at DESC, m.id SKIP $capacity LIMIT 1 "
    "RETURN m.id AS id, m.importance AS importance, m.created_at AS created_at, "
    "m.deleted_at IS NOT NULL AS deleted"
)
CAPACITY_CUTOFF = cypher(
    "forgetting.CAPACITY_CUTOFF",
    "MATCH (m:Memory {user_id: $user_id}) "
    "WHERE NOT (m.kind = 'reflection' OR m.category IN ['core', 'system']) " + _KEEP_ORDER,
)
CAPACITY_CUTOFF_NAMED = cypher(
    "forgetting.CAPACITY_CUTOFF_NAMED",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) WHERE m.user_id = $user_id " + _KEEP_ORDER,
)
ADVANCE_CURSOR = cypher(
    "forgetting.ADVANCE_CURSOR",
    # Under the job's write lock (graph.cypher.locked): of two runners applying
    # one batch on Neo4j, both would otherwise pass the test and apply it twice.
    "MATCH (j:Job {id: $job_id}) "
    + locked("j")
    + "WHERE j.status = 'running' AND coalesce(j.cursor, '') = $expected "
    "SET j.cursor = $cursor, j.progress = $progress RETURN j.id AS id",
)
SET_PROGRESS = cypher(
    "forgetting.SET_PROGRESS",
    "MATCH (j:Job {id: $job_id}) SET j.progress = $progress RETURN j.id AS id",
)
USERS = cypher(
    "forgetting.USERS",
    "MATCH (u:User) WHERE u.id > $after RETURN u.id AS id ORDER BY u.id LIMIT $limit",
)
# A level change: level, history and the original kept. RELEVEL alone is for
# a memory whose text stays (and with it its vector and tokens: their indexes
# are not touched); REWRITE also sets the new text, vector and tokens. The
# level read is tested under the lock (rows in id order): on Neo4j two runs
# that both read it full both faded it, and its history said so twice.
_LEVEL_CHANGE = (
    "UNWIND $rows AS row MATCH (m:Memory {id: row.id}) "
    + locked("m", "row")
    + "WHERE m.user_id = $user_id AND coalesce(m.level, 'full') = row.from_level "
    "AND m.deleted_at IS NULL "
    "SET m.original_content = row.original, m.level = row.level, m.level_changed_at = $now, "
    "m.level_history = coalesce(m.level_history, []) + [row.change], "
    "m.category = coalesce(row.category, m.category)"
)
RELEVEL = cypher("forgetting.RELEVEL", _LEVEL_CHANGE + " RETURN collect(m.id) AS changed")
REWRITE = cypher(
    "forgetting.REWRITE",
    _LEVEL_CHANGE + ", m.content = row.content, m.embedding = row.embedding, "
    "m.search_text = row.search_text RETURN collect(m.id) AS changed",
)
# These two test under the lock as well (ids sorted): two runs would otherwise
# both change the memory, and both count it done.
PROMOTE = cypher(
    "forgetting.PROMOTE",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) "
    + locked("m")
    + "WHERE m.user_id = $user_id AND m.category = 'fact' AND m.deleted_at IS NULL "
    "SET m.category = 'core' RETURN collect(m.id) AS changed",
)
SOFT_DELETE = cypher(
    "forgetting.SOFT_DELETE",
    "UNWIND $ids AS id MATCH (m:Memory {id: id}) "
    + locked("m")
    + "WHERE m.user_id = $user_id AND m.deleted_at IS NULL "
    "SET m.deleted_at = $now RETURN collect(m.id) AS changed",
)


def candidate_from(row: Sequence[Any]) -> Candidate:
    """A ``Candidate`` from its row (see ``_CANDIDATE``)."""
    memory_id, kind, category, level, importance, created, accessed, count, deleted = row
    return Candidate(
        id=memory_id,
        kind=MemoryKind(kind),
        category=MemoryCategory(category or "fact"),
        level=MemoryLevel(level or "full"),
        importance=float(importance or 0.0),
        created_at=parse_utc(created),
        last_accessed_at=parse_utc(accessed),
        access_count=int(count or 0),
        deleted=bool(deleted),
    )


class ForgetGraph:
    """Reads pages for forget runs and applies their batches."""

    def __init__(self, graph: GraphDriver, cascade_limit: int = MAX_CASCADE_NODES) -> None:
        self._graph = graph
        self._cascade_limit = cascade_limit

    async def candidates(
        self, user_id: str, with_deleted: bool, named: Sequence[str] = ()
    ) -> list[Candidate]:
        """Every memory of ``user_id`` (or the named ones) as the policy sees it, in id order."""
        params = {"user_id": user_id, "with_deleted": with_deleted, "ids": list(named)}
        query = CANDIDATES_NAMED if named else CANDIDATES

        async def work(tx: AsyncManagedTransaction) -> list[Candidate]:
            records = await fetch(tx, query, params)
            return [candidate_from(row) for row in records[0]["rows"]] if records else []

        found = await self._graph.read(work)
        found.sort(key=lambda c: c.id)
        return found

    async def texts(self, user_id: str, ids: Sequence[str]) -> dict[str, tuple[str, str | None]]:
        """``(content, original_content)`` of the memories among ``ids``."""

        async def work(tx: AsyncManagedTransaction) -> dict[str, tuple[str, str | None]]:
            records = await fetch(tx, TEXTS, {"user_id": user_id, "ids": list(ids)})
            rows = records[0]["rows"] if records else []
            return {memory_id: (content, original) for memory_id, content, original in rows}

        return await self._graph.read(work)

    async def capacity_cutoff(
        self, user_id: str, capacity: int, named: Sequence[str] = ()
    ) -> RankKey | None:
        """The keep-order key of the first memory over ``capacity``; None if within it."""
        params = {"user_id": user_id, "capacity": capacity, "ids": list(named)}
        query = CAPACITY_CUTOFF_NAMED if named else CAPACITY_CUTOFF

        async def work(tx: AsyncManagedTransaction) -> RankKey | None:
            rows = await fetch(tx, query, params)
            if not rows:
                return None
            r = rows[0]
            created = to_utc(r["created_at"]).timestamp()
            return (int(bool(r["deleted"])), -float(r["importance"]), -created, r["id"])

        return await self._graph.read(work)

    async def apply(self, batch: BatchWrite) -> Applied:
        """Write one batch (and advance the job's cursor) in one transaction.

        Returns what was removed along provenance besides the hard-deleted
        memories, and which of those were kept (changed since they were
        read); a job's progress counts both. ``Conflict`` when the job's cursor
        is not where this batch expects it (another runner went on): nothing
        is written.
        """
        user = batch.user_id
        progress = dict(batch.progress or {})

        async def work(tx: AsyncManagedTransaction) -> Applied:
            done: set[str] = set()
            if batch.job_id is not None:
                params: dict[str, Any] = {
                    "job_id": batch.job_id,
                    "expected": batch.expected_cursor,
                    "cursor": batch.cursor,
                    "progress": json.dumps(progress, sort_keys=True),
                }
                if not await fetch(tx, ADVANCE_CURSOR, params):
                    raise Conflict(f"job {batch.job_id} is past this batch already")
            for query, keeps_text in ((REWRITE, False), (RELEVEL, True)):
                rows = [
                    _rewrite_row(r, batch.now)
                    for r in sorted(batch.rewrites, key=lambda r: r.memory_id)
                    if (r.indexed is None) is keeps_text
                ]
                if rows:
                    params = {"rows": rows, "user_id": user, "now": batch.now}
                    changed = await _changed(tx, query, params)
                    if not keeps_text:
                        rewritten = [r for r in batch.rewrites if r.memory_id in changed]
                        await _rename(tx, user, rewritten)
                    done |= changed
            if batch.promotions:
                promoting = {"ids": sorted(batch.promotions), "user_id": user}
                done |= await _changed(tx, PROMOTE, promoting)
            if batch.soft_deletes:
                deleting = {"ids": sorted(batch.soft_deletes), "user_id": user, "now": batch.now}
                deleted = await _changed(tx, SOFT_DELETE, deleting)
                await release_summarized(tx, sorted(deleted), batch.now)
                done |= deleted
            cascaded = 0
            if batch.hard_deletes:
                deleted, cascaded = await self._hard_delete(tx, user, batch.hard_deletes)
                done |= deleted
            applied = Applied(
                cascaded, tuple(d for d in batch.decisions if d.memory_id not in done)
            )
            if batch.job_id is not None and (applied.cascaded or applied.kept):
                # A new dict: the driver may run ``work`` again after a transient error.
                counted = left_alone(progress, applied.kept)
                counted["cascaded"] = progress.get("cascaded", 0) + applied.cascaded
                text = json.dumps(counted, sort_keys=True)
                await fetch(tx, SET_PROGRESS, {"job_id": batch.job_id, "progress": text})
            return applied

        # A restore MERGEs entities, which a memorize may be making too.
        return await self._graph.write(work, merge_only=any(r.named for r in batch.rewrites))

    async def users(self, after: str, limit: int) -> list[str]:
        """User ids after ``after``, in order (the scheduled pass goes through them all)."""

        async def work(tx: AsyncManagedTransaction) -> list[str]:
            rows = await fetch(tx, USERS, {"after": after, "limit": limit})
            return [r["id"] for r in rows]

        return await self._graph.read(work)

    async def _hard_delete(
        self, tx: AsyncManagedTransaction, user_id: str, read: Sequence[Candidate]
    ) -> tuple[set[str], int]:
        """The memories deleted of those ``read``, and how many nodes went besides."""
        # Only the memories still as the run read them: one recalled, boosted
        # or changed since (a run that fuzzes with a model takes minutes) is
        # no longer what the policy chose, and is left to the next run.
        params = {"user_id": user_id, "with_deleted": True, "ids": sorted(c.id for c in read)}
        await fetch(tx, CLAIM_READ, params)
        records = await fetch(tx, CANDIDATES_NAMED, params)
        current = {candidate_from(row) for row in records[0]["rows"]} if records else set()
        ids = [c.id for c in read if c in current]
        if not ids:
            return set(), 0
        report = await self._planned(tx, user_id, ids, claim=True)
        await delete_planned(tx, report)
        return set(ids), _besides(report, ids)

    async def would_delete(
        self, user_id: str, ids: Sequence[str], gone: Collection[str] = ()
    ) -> set[str]:
        """The nodes a hard delete of ``ids`` would remove, they and what derives only
        from them, for a dry run; nothing is written. ``gone``: the nodes the run's
        earlier pages would have removed by then (a real run commits page by page)."""

        async def work(tx: AsyncManagedTransaction) -> set[str]:
            return set((await self._planned(tx, user_id, ids, gone)).deleted_ids) - set(gone)

        return await self._graph.read(work) if ids else set()

    async def _planned(
        self,
        tx: AsyncManagedTransaction,
        user_id: str,
        ids: Sequence[str],
        gone: Collection[str] = (),
        *,
        claim: bool = False,
    ) -> DeletionReport:
        limit = self._cascade_limit
        closure = await memory_closure(tx, ids, [user_id], limit, claim=claim)
        if not closure.complete:
            raise too_large(ids[0], limit)
        return deletion_report(ids[0], closure, gone)


def _besides(report: DeletionReport, ids: Sequence[str]) -> int:
    """How many of the nodes ``report`` deletes are not among ``ids``."""
    return len(report.deleted_ids - set(ids))


async def _changed(tx: AsyncManagedTransaction, query: LiteralString, params: Any) -> set[str]:
    """The ids of the memories a batch statement changed (``collect(m.id) AS changed``)."""
    records = await fetch(tx, query, params)
    return set(records[0]["changed"]) if records else set()


async def _rename(tx: AsyncManagedTransaction, user_id: str, rewritten: Sequence[Rewrite]) -> None:
    """A rewritten memory mentions what its new text names, and no longer what it dropped."""
    await unlink_memories(tx, {r.memory_id: r.unnamed for r in rewritten})
    named = [Mentions("Memory", r.memory_id, user_id, r.named) for r in rewritten if r.named]
    await write_mentions(tx, named, new_memories=False)


def _rewrite_row(r: Rewrite, now: datetime) -> dict[str, Any]:
    return {
        "id": r.memory_id,
        "from_level": r.from_level.value,
        "level": r.to_level.value,
        "content": r.content,
        "original": r.original_content,
        "embedding": None if r.indexed is None else float32(r.indexed.embedding),
        "search_text": None if r.indexed is None else r.indexed.search_text,
        "change": LevelChange(now, r.from_level, r.to_level).encode(),
        "category": "core" if r.promote else None,
    }
