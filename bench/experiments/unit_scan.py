"""A user's MemUnits: through their own sessions, or through the full-text user key.

The exact vector scan of MemUnits and their count per user used to walk the
user's sessions to their units. That misses a group conversation's unit,
which lives in its owner's session and lists each participant in
``user_ids``. They now read the full-text index's ``user_key`` (one token per
participant), which every MemUnit carries. This loads ``--users`` users of
``--units`` MemUnits each (sessions of 20, every tenth shared with the next
user) with random vectors, and times both forms of both queries for one
user, alternating A B, B A, so drift falls on both alike. The session form
is kept here only as the baseline: it finds fewer units, which the report
shows.

    python -m bench.experiments.unit_scan [--graph arcadedb|neo4j-5.26|neo4j-2026]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, LiteralString

import numpy as np

from bench import graphs
from bench.common import alternated, percentiles, report_cli, stopwatch
from bench.graphs import open_graph, report_head
from graph.records import vector_param
from graph.store import GraphStore, connect
from hippograph.clock import utc_now
from hippograph.ids import IdKind, new_id
from hippograph.models import IndexedText, IngestBatch, MemoryFilter, MemUnit, Session, User
from hippograph.services import job_payloads
from hippograph.text import search_text

DIMENSIONS = 384
PER_SESSION = 20
GROUP_EVERY = 10  # every tenth session is a group conversation with the next user

# The forms replaced (graph/search.py before): through the user's own sessions.
_BY_SESSIONS: LiteralString = (
    "MATCH (s:Session {user_id: $user_id}) MATCH (n:MemUnit {session_id: s.id}) "
    "WHERE $user_id IN n.user_ids "
)
SESSION_EXACT: LiteralString = (
    _BY_SESSIONS + "AND n.embedding IS NOT NULL "
    "WITH n, vector.similarity.cosine(n.embedding, $vector) AS score "
    "ORDER BY score DESC, n.id ASC LIMIT $k RETURN collect(n.id) AS rows"
)
SESSION_COUNT: LiteralString = _BY_SESSIONS + "RETURN count(n) AS n"


# One query's form: called with the query vector (the count ignores it).
Form = Callable[[list[float]], Awaitable[object]]


def user_id(i: int) -> str:
    return f"user-{i:03d}"


async def load(store: GraphStore, users: int, units: int, rng: np.random.Generator) -> None:
    """``users`` users of ``units`` MemUnits each, in sessions of :data:`PER_SESSION`."""
    start = utc_now() - timedelta(days=100)
    for u in range(users):
        await store.users.create_user(User(id=user_id(u), name=f"User {u}", created_at=start))
    for u in range(users):
        batch = []
        for s in range(units // PER_SESSION):
            at = start + timedelta(minutes=u * units + s * PER_SESSION)
            session = Session(
                id=new_id(IdKind.SESSION, at), user_id=user_id(u), title="chat", started_at=at
            )
            assert await store.users.create_session(session)
            owners = [user_id(u)]
            if s % GROUP_EVERY == 0:
                owners.append(user_id((u + 1) % users))
            for i in range(PER_SESSION):
                vector = rng.standard_normal(DIMENSIONS)
                vector /= np.linalg.norm(vector)
                unit = MemUnit(
                    id=new_id(IdKind.MEMUNIT, at + timedelta(seconds=i)),
                    user_ids=tuple(owners),
                    session_id=session.id,
                    summary=f"unit {i} of session {s}",
                    narrative="",
                    subject="",
                    ts=at,
                )
                text = IndexedText(vector.tolist(), search_text(unit.summary))
                batch.append((unit, text, ()))
        for first in range(0, len(batch), 500):
            await store.ingest.write(IngestBatch(units=batch[first : first + 500], memories=()))
        print(f"  loaded user {u + 1}/{users}", file=sys.stderr, end="\r")
    print(file=sys.stderr)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(11)
    data_dir = Path(tempfile.mkdtemp(prefix="hippograph-unit-scan-"))
    with open_graph(args.graph, data_dir) as graph:
        connection = await connect(graph.settings, job_codec=job_payloads)
        try:
            store = connection.store
            await store.setup(model="random", dimensions=DIMENSIONS)
            await load(store, args.users, args.units, rng)
            who = user_id(1)
            found = {
                "sessions": await _count(store, SESSION_COUNT, who),
                "full_text": await store.search.count_units(who),
            }
            forms: dict[str, dict[str, Form]] = {
                "exact_scan": {
                    "sessions": lambda v: _session_exact(store, who, v),
                    "full_text": lambda v: store.search.unit_vector_exact(
                        who, v, 10, MemoryFilter()
                    ),
                },
                "count": {
                    "sessions": lambda v: _count(store, SESSION_COUNT, who),
                    "full_text": lambda v: store.search.count_units(who),
                },
            }
            timings: dict[str, dict[str, list[float]]] = {
                q: {f: [] for f in pair} for q, pair in forms.items()
            }
            for round_ in range(args.queries + args.warmup):
                drawn = rng.standard_normal(DIMENSIONS)
                vector = (drawn / np.linalg.norm(drawn)).tolist()
                for query, pair in forms.items():
                    for form in alternated(list(pair), round_):
                        with stopwatch() as took:
                            await pair[form](vector)
                        if round_ >= args.warmup:
                            timings[query][form].append(took[0] * 1000)
        finally:
            await connection.close()
    return {
        **report_head("experiments.unit_scan", graph),
        "users": args.users,
        "units_per_user": args.units,
        "queries": args.queries,
        "units_found_for_one_user": found,
        "ms": {q: {f: percentiles(s) for f, s in pair.items()} for q, pair in timings.items()},
    }


async def _count(store: GraphStore, query: LiteralString, who: str) -> int:
    rows = await store.graph.query(query, {"user_id": who})
    return int(rows[0]["n"])


async def _session_exact(store: GraphStore, who: str, vector: list[float]) -> list[str]:
    params = {"user_id": who, "vector": vector_param(vector), "k": 10}
    rows = await store.graph.query(SESSION_EXACT, params)
    return list(rows[0]["rows"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    graphs.add_argument(parser)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--units", type=int, default=2000, help="MemUnits per user")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    report_cli(parser, run, show)


def show(report: dict[str, Any], args: argparse.Namespace) -> None:
    """p50/p95 of each form, and how many units each finds."""
    for query, pair in report["ms"].items():
        for form, ms in pair.items():
            print(f"{query:10s} {form:9s} p50/p95 {ms['p50']}/{ms['p95']} ms")
    print("units found:", report["units_found_for_one_user"])
    print(report["graph"], report["machine"])


if __name__ == "__main__":
    main()
