"""What taking the speakers' names out of a query costs (hippograph/query_names.py).

Search embeds the query without the names of the user and of the speakers of
their latest sessions. Two costs, measured here on one graph server:

* the lookup of those speakers (``SearchGraph.speakers``): paid by a user's
  first search, then refreshed behind the requests every
  ``count_cache_ttl_s``. A user with ``--sessions`` sessions of 40 messages
  each, three speakers a session, one of them new every session; the lookup
  reads the latest 20 sessions, so it should not grow with the history.
* taking the names out (``without_names``), on every search: over the dev
  files' questions, with the names of their conversations.

    python -m bench.experiments.speakers --graph arcadedb --sessions 2500 [--reads 200] [--json]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench import graphs
from bench.common import LOCOMO, REALTALK, dev_file, machine, percentiles, report_cli, stopwatch
from bench.graphs import open_graph
from graph.store import connect
from hippograph.clock import utc_now
from hippograph.ids import IdKind, new_id
from hippograph.importers.locomo import load_locomo
from hippograph.models import Message, Role, Session, User
from hippograph.query_names import without_names
from hippograph.services import job_payloads
from hippograph.settings import SearchSettings

USER = "speaker-user"
TURNS = 40
DIMENSIONS = 384


async def load(store: Any, sessions: int) -> float:
    """``sessions`` sessions of ``TURNS`` messages; returns the seconds it took."""
    await store.users.create_user(User(id=USER, name="Ann", created_at=utc_now()))
    start = utc_now() - timedelta(days=sessions)
    with stopwatch() as took:
        for number in range(sessions):
            at = start + timedelta(days=number)
            session = Session(
                id=new_id(IdKind.SESSION, at), user_id=USER, title="chat", started_at=at
            )
            await store.users.create_session(session)
            speakers = ("Ann", "Bob", f"Guest {number}")
            messages = [
                Message(
                    id=new_id(IdKind.MESSAGE, at),
                    session_id=session.id,
                    user_id=USER,
                    speaker=speakers[turn % 3],
                    role=Role.USER,
                    content=f"turn {turn} of session {number}",
                    ts=at + timedelta(minutes=turn),
                    seq=0,
                )
                for turn in range(TURNS)
            ]
            await store.messages.append(session.id, messages)
    return took[0]


def stripping(reads: int) -> dict[str, Any]:
    """``without_names`` over the dev files' questions, per call in microseconds."""
    asked = [
        (question.question, conversation.speakers)
        for path in (LOCOMO, REALTALK)
        for conversation in load_locomo(dev_file(path))
        for question in conversation.questions
    ]
    samples = []
    for _ in range(max(1, reads // len(asked) + 1)):
        for query, names in asked:
            started = time.perf_counter()
            without_names(query, ["Ann", *names])
            samples.append((time.perf_counter() - started) * 1e6)
    changed = sum(without_names(q, n) != q for q, n in asked)
    return {"per_call_us": percentiles(samples), "questions": len(asked), "changed": changed}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="hippograph-speakers-"))
    sessions = SearchSettings().speaker_sessions
    with open_graph(args.graph, data_dir) as graph:
        connection = await connect(graph.settings, job_codec=job_payloads)
        try:
            store = connection.store
            await store.setup(model="random", dimensions=DIMENSIONS)
            load_s = await load(store, args.sessions)
            found = await store.search.speakers(USER, sessions, 5000)
            samples = []
            for _ in range(args.reads):
                with stopwatch() as took:
                    await store.search.speakers(USER, sessions, 5000)
                samples.append(took[0] * 1000)
        finally:
            await connection.close()
    return {
        "machine": machine(),
        "graph": args.graph,
        "graph_version": graph.version,
        "sessions": args.sessions,
        "messages": args.sessions * TURNS,
        "load_s": round(load_s, 1),
        "speakers_found": len(found),
        "lookup_ms": percentiles(samples),
        "without_names": stripping(args.reads),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    graphs.add_argument(parser)
    parser.add_argument("--sessions", type=int, default=2500)
    parser.add_argument("--reads", type=int, default=200)
    report_cli(parser, run, show)


def show(report: dict[str, Any], args: argparse.Namespace) -> None:
    """The speakers lookup's latency and the cost of taking names out."""
    lookup, strip = report["lookup_ms"], report["without_names"]["per_call_us"]
    print(
        f"{report['graph']} {report['graph_version']}: {report['sessions']} sessions, "
        f"{report['messages']} messages (loaded in {report['load_s']} s); "
        f"{report['speakers_found']} speakers in the latest sessions"
    )
    print(f"speakers lookup ms: p50 {lookup['p50']} p95 {lookup['p95']} p99 {lookup['p99']}")
    print(
        f"without_names µs per query: p50 {strip['p50']} p95 {strip['p95']} "
        f"({report['without_names']['changed']} of {report['without_names']['questions']} "
        "dev questions changed)"
    )


if __name__ == "__main__":
    main()
