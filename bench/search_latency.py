"""Search latency and recall at scale, per method, in-process and over HTTP.

1. Start the runtime on an empty data directory (``--graph``: the embedded
   ArcadeDB, or a Neo4j release, see ``bench.graphs``), create one user and
   bulk-insert ``--memories`` memories (LoCoMo turns; past the 788 turns, a
   turn plus the start of another, so every text is different), with kinds
   and importances spread so that filters have something to filter, in
   conversations of 40 turns (session and position, so the context stage
   fetches the turns around the best hits as it does on real data); then a
   small user with ``--small-memories`` of the texts after those (3,000 by
   default: above the exact-scan threshold, so the vector index serves it,
   at a 3% share of the index, the case oversampling handles worst). Stop.
2. Start again on the same data and, for each method (VECTOR, KEYWORD,
   HYBRID, and HYBRID with filters), run ``--searches`` LoCoMo questions
   through the search service after a warm-up: latency p50/p95. Then the
   vector index's recall@10: the neighbours the index gives the served path
   (twice the default candidate pool, as for a user who owns the index)
   against an exact cosine scan of the same user, before any ranking. The
   first search of this step builds the vector graph of the bulk load. Last,
   what the shortcuts of scale cost in quality: LoCoMo recall@k of the
   questions' evidence among these memories (``bench.scale_recall``). For
   the small user: HYBRID and HYBRID+filters latency, and the top-10 recall
   against an exact scan of the neighbours the served path gets (oversampled
   by the user's share, or filtered inside the index where the server can).
3. Stop, start again and time the same searches in-process once more: a
   restarted service on settled data.
4. Stop, start ``hippograph serve`` on the same data and run the same
   searches through GraphQL over HTTP from this process: latency p50/p95,
   the big user's and the small user's.

    python -m bench.search_latency --memories 100000 --searches 200 \
        [--graph arcadedb|neo4j-5.26|neo4j-2026] [--json]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from bench import graphs, scale_recall
from bench.common import (
    ADMIN_HEADERS,
    ADMIN_KEY,
    Report,
    document,
    embed_cached,
    locomo_questions,
    locomo_turn_texts,
    memory_at,
    percentiles,
    report_cli,
    serve_env,
    stopwatch,
    timed_ms,
)
from bench.graphs import open_graph, report_head
from graph.embedded import free_port
from graph.store import GraphStore
from hippograph import text
from hippograph.clock import utc_now
from hippograph.entities import memory_mentions
from hippograph.models import IndexedText, Memory, MemoryFilter, MemoryKind, Mentions, Sources
from hippograph.modes import SearchMode
from hippograph.runtime import Runtime
from hippograph.scoring import ScoringWeights, SearchMethod
from hippograph.services.counts import CachedCounts
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.search import SearchRequest
from hippograph.services.search_pipeline import vector as vector_stage
from hippograph.services.search_pipeline.plan import plan_search
from hippograph.settings import ApiSettings, Settings

USER = "bench-user"
SMALL_USER = "small-user"
KINDS = (MemoryKind.EPISODIC, MemoryKind.SEMANTIC, MemoryKind.EVENT)
# What the served path asks the index for, for a user who owns it all: twice
# the default candidate pool (see hippograph/services/search_pipeline/vector.py).
INDEX_CANDIDATES = 100
FILTERED = MemoryFilter(kinds=(MemoryKind.EPISODIC, MemoryKind.SEMANTIC), min_importance=0.2)
# The walk is off by default (HIPPOGRAPH_SEARCH__ENTITY_WEIGHT 0): asked for by weight here.
ENTITY_WEIGHT = 0.2
# name -> (method, filter, entity weight); weight 0 skips the entity walk, so
# "hybrid" and "hybrid-no-entities" are HYBRID with and without it, side by side.
RUNS: dict[str, tuple[SearchMethod, MemoryFilter, float]] = {
    "vector": (SearchMethod.VECTOR, MemoryFilter(), ENTITY_WEIGHT),
    "keyword": (SearchMethod.KEYWORD, MemoryFilter(), ENTITY_WEIGHT),
    "hybrid": (SearchMethod.HYBRID, MemoryFilter(), ENTITY_WEIGHT),
    "hybrid-no-entities": (SearchMethod.HYBRID, MemoryFilter(), 0.0),
    "hybrid+filters": (SearchMethod.HYBRID, FILTERED, ENTITY_WEIGHT),
}
SMALL_RUNS = {name: RUNS[name] for name in ("hybrid", "hybrid+filters")}
SESSION_TURNS = 40  # about a LoCoMo session


def distinct_texts(count: int) -> list[str]:
    """``count`` different memory texts built from LoCoMo turns.

    The turns first, then each turn followed by the start of another: in
    round r, turn b takes the start of turn b + r. Every (turn, other turn)
    pair occurs once, so no text repeats (duplicates would flatter neither
    index: ties make recall ambiguous, and a vector graph full of copies is
    not one a user builds).
    """
    turns = locomo_turn_texts()
    n = len(turns)
    if count > n * n:
        raise ValueError(f"at most {n * n} distinct texts from {n} turns")
    texts = []
    for i in range(count):
        base, rounds = i % n, i // n
        if rounds == 0:
            texts.append(turns[base])
        else:
            tail = " ".join(turns[(base + rounds) % n].split()[:10])
            texts.append(f"{turns[base]} {tail}")
    if len(set(texts)) != count:
        raise ValueError("the LoCoMo turns repeat: the texts would too")
    return texts


def timeline_memory(
    user: str,
    texts: list[str],
    i: int,
    start_time: datetime,
    *,
    session_id: str | None = None,
    seq: int | None = None,
) -> Memory:
    """``texts[i]`` as ``user``'s memory: five minutes after the one before it (the
    first at ``start_time``), with kinds and importances spread so that filters
    have something to filter."""
    created = start_time + timedelta(minutes=5 * i)
    kind, importance = KINDS[i % len(KINDS)], (i % 10) / 10
    return memory_at(user, kind, texts[i], importance, created, session_id=session_id, seq=seq)


def speaker_mentions(memory: Memory) -> Mentions:
    """The entities a memory text of :func:`distinct_texts` mentions, said by its speaker."""
    return memory_mentions(memory, memory.content.split(" said, ", 1)[0])


async def write_batch(
    store: GraphStore,
    items: list[tuple[Memory, IndexedText, Sources]],
    mentions: list[Mentions],
    done: int,
    total: int,
) -> float:
    """``items`` with the entities they mention, in one write: its seconds.

    Then says on stderr that ``done`` of ``total`` memories are in.
    """
    with stopwatch() as took:
        await store.memories.add_many(items, mentions)
    print(f"  inserted {done}/{total}", file=sys.stderr, end="\r")
    return took[0]


async def load(
    runtime: Runtime, texts: list[str], batch: int, user: str = USER, entities: bool = True
) -> dict[str, float]:
    """Create the user and bulk-insert one memory per text (vectors from the cache),
    with the entities each mentions (as memorize links them) unless ``entities`` is off."""
    await runtime.services.users.create_user(SETTINGS_ADMIN, user, "Bench")
    store = runtime.connection.store
    with stopwatch() as embedding:
        model = f"{runtime.embedder.model_name}-{runtime.embedder.precision}"
        vectors = await embed_cached(runtime.embedder.embed, texts, f"search-latency-{model}")
    write_s = 0.0
    extract_s = 0.0
    edges = 0
    start_time = utc_now() - timedelta(days=365)
    for start in range(0, len(texts), batch):
        items = []
        for i in range(start, min(start + batch, len(texts))):
            items.append(
                (
                    timeline_memory(
                        user,
                        texts,
                        i,
                        start_time,
                        # conversations of SESSION_TURNS turns, so that search's
                        # context stage finds the turns around its best hits
                        session_id=f"ses_{user}_{i // SESSION_TURNS}",
                        seq=i % SESSION_TURNS,
                    ),
                    IndexedText(embedding=vectors[i], search_text=text.search_text(texts[i])),
                    Sources(),
                )
            )
        mentions = []
        if entities:
            with stopwatch() as reading:
                mentions = [speaker_mentions(memory) for memory, _, _ in items]
            extract_s += reading[0]
            edges += sum(len(m.entities) for m in mentions)
        write_s += await write_batch(store, items, mentions, start + len(items), len(texts))
    print(file=sys.stderr)
    return {
        "memories": len(texts),
        "embed_s_or_cached": round(embedding[0], 1),
        "write_s": round(write_s, 1),
        "writes_per_s": round(len(texts) / write_s, 1),
        "entity_extract_s": round(extract_s, 1),
        "entity_edges": edges,
    }


def _request(
    question: str,
    method: SearchMethod,
    memory_filter: MemoryFilter,
    user: str = USER,
    entity_weight: float = ENTITY_WEIGHT,
) -> SearchRequest:
    return SearchRequest(
        user,
        question,
        10,
        method=method,
        filter=memory_filter,
        mode=SearchMode.NORMAL,
        touch=False,
        weights=ScoringWeights(entity_weight=entity_weight),
    )


async def search_in_process(
    runtime: Runtime,
    questions: list[str],
    warmup: int,
    user: str = USER,
    runs: dict[str, tuple[SearchMethod, MemoryFilter, float]] = RUNS,
) -> dict[str, Any]:
    """Latency per method, after the first search since start."""
    search = runtime.services.search
    with stopwatch() as first:
        await search.search(
            SETTINGS_ADMIN, _request(questions[0], SearchMethod.VECTOR, MemoryFilter(), user)
        )
    report: dict[str, Any] = {"first_query_after_start_ms": round(first[0] * 1000, 1)}
    for name, run_ in runs.items():
        report[name] = {"latency_ms": await _latency_ms(runtime, questions, warmup, user, run_)}
    return report


async def _latency_ms(
    runtime: Runtime,
    questions: list[str],
    warmup: int,
    user: str,
    run_: tuple[SearchMethod, MemoryFilter, float],
) -> dict[str, float]:
    """Percentiles of ``questions`` searched one way (``run_``), after ``warmup`` of them."""
    method, memory_filter, weight = run_
    search = runtime.services.search
    latencies, _ = await timed_ms(
        lambda question: search.search(
            SETTINGS_ADMIN, _request(question, method, memory_filter, user, weight)
        ),
        questions,
        questions[:warmup],
    )
    return percentiles(latencies)


async def served_recall(runtime: Runtime, questions: list[str], user: str) -> float:
    """Top-10 recall, against an exact scan, of the neighbours the served path gets.

    The served path is the service's own search plan (settings, candidate
    pool, NORMAL mode's levels), executed by ``search_pipeline.vector.fetch``: for a
    small user among large ones, the index asked for enough of everyone's
    neighbours (Neo4j 5, ArcadeDB), or for the user's own inside the index
    (Neo4j 2026).
    """
    store = runtime.connection.store
    counts = CachedCounts(store.memories.count, 3600)
    search = store.search
    pool = SearchRequest(user, "").candidates  # the service's default pool
    recalls: list[float] = []
    everything = MemoryFilter()
    for vector in await runtime.embedder.embed_queries(questions):
        now = utc_now()
        plan = plan_search(
            user_id=user,
            units=False,
            method=SearchMethod.VECTOR,
            mode=SearchMode.NORMAL,
            terms=(),
            memory_filter=everything,
            now=now,
            top_k=10,
            candidates=pool,
            radius=None,
            counts=await counts.of(user),
            index_scoped=search.scoped_vector_index(),
            settings=runtime.settings.search,
        )
        served = await vector_stage.fetch(search, plan, vector)
        exact = await search.vector_exact(user, vector, 10, everything, now)
        wanted = {h.id for h in exact}
        recalls.append(len(wanted & {h.id for h in served[:10]}) / max(1, len(wanted)))
    return round(sum(recalls) / len(recalls), 4)


async def index_recall(runtime: Runtime, questions: list[str]) -> float:
    """Recall@10 of the vector index against an exact cosine scan of the user."""
    # The index alone, before ranking: final hits weigh recency and
    # importance in, so comparing them with a cosine scan would not measure it.
    store = runtime.connection.store.search
    recalls: list[float] = []
    for vector in await runtime.embedder.embed_queries(questions):
        now = utc_now()
        served = await store.vector_index(USER, vector, INDEX_CANDIDATES, MemoryFilter(), now)
        exact = await store.vector_exact(USER, vector, 10, MemoryFilter(), now)
        wanted = {h.id for h in exact}
        recalls.append(len(wanted & {h.id for h in served[:10]}) / max(1, len(wanted)))
    return round(sum(recalls) / len(recalls), 4)


QUERY = document("BenchSearchTuned")


def _graphql_filter(memory_filter: MemoryFilter) -> dict[str, Any] | None:
    if memory_filter == MemoryFilter():
        return None
    return {
        "kinds": [k.name for k in memory_filter.kinds or ()],
        "minImportance": memory_filter.min_importance,
    }


def search_over_http(
    data_dir: Path,
    graph_env: dict[str, str],
    questions: list[str],
    warmup: int,
    small_user: bool = True,
) -> dict[str, Any]:
    """Start ``hippograph serve`` on the benchmark's graph; time GraphQL searches from here."""
    port = free_port()
    # One key sends every request back to back: fast searches (keyword ones
    # at 70 a second on Neo4j) ran into the per-key rate limit's 429s.
    env = (
        serve_env(data_dir, port, ADMIN_KEY) | graph_env | {"HIPPOGRAPH_API__RATE_LIMIT_PER_S": "0"}
    )
    hippograph = Path(sys.executable).parent / "hippograph"
    started = time.monotonic()
    server = subprocess.Popen(
        [str(hippograph), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    report: dict[str, Any] = {}
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers=ADMIN_HEADERS,
            timeout=60,
        ) as client:

            def ask(
                question: str,
                method: SearchMethod,
                memory_filter: MemoryFilter,
                user: str = USER,
                weight: float = ENTITY_WEIGHT,
            ) -> float:
                variables = {
                    "u": user,
                    "q": question,
                    "method": method.name,
                    "filter": _graphql_filter(memory_filter),
                    "entityWeight": weight,
                }
                with stopwatch() as took:
                    answer = client.post("/graphql", json={"query": QUERY, "variables": variables})
                answer.raise_for_status()
                assert "errors" not in answer.json(), answer.text
                return took[0] * 1000

            while "start_to_first_answer_s" not in report:
                if server.poll() is not None or time.monotonic() - started > 300:
                    raise RuntimeError("hippograph serve did not start")
                try:
                    ask("hello", SearchMethod.VECTOR, MemoryFilter())
                    report["start_to_first_answer_s"] = round(time.monotonic() - started, 2)
                except httpx.HTTPError:
                    time.sleep(0.2)
            users = [(USER, RUNS, report)]
            if small_user:  # not there with --small-memories 0
                users.append((SMALL_USER, SMALL_RUNS, {}))
            for user, runs, into in users:
                for name, (method, memory_filter, weight) in runs.items():
                    for question in questions[:warmup]:
                        ask(question, method, memory_filter, user, weight)
                    latencies = [ask(q, method, memory_filter, user, weight) for q in questions]
                    into[name] = {"latency_ms": percentiles(latencies)}
                if user == SMALL_USER:
                    report["small_user"] = into
        return report
    finally:
        server.terminate()
        server.wait(timeout=60)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="hippograph-bench-"))
    questions = (locomo_questions() * 2)[: args.searches]
    everything = distinct_texts(args.memories + args.small_memories)
    texts, small_texts = everything[: args.memories], everything[args.memories :]
    with open_graph(args.graph, data_dir) as graph:
        settings = Settings(graph=graph.settings, api=ApiSettings(admin_key=ADMIN_KEY))
        runtime = await Runtime.start(settings)
        try:
            loaded = await load(runtime, texts, args.batch, entities=args.entities)
            if small_texts:
                await load(runtime, small_texts, args.batch, SMALL_USER, args.entities)
        finally:
            await runtime.stop()
        # Searched after a restart, like the HTTP runs: right after a bulk load
        # the graph server is still compacting the indexes it just filled, and
        # searches then measure that, not a running service.
        runtime = await Runtime.start(settings)
        try:
            in_process = await search_in_process(runtime, questions, args.warmup)
            recall = await index_recall(runtime, questions)
            in_process["vector"]["index_recall_at_10_vs_exact"] = recall
            in_process["locomo_evidence_recall"] = await scale_recall.evidence_recall(
                runtime.services.search, SETTINGS_ADMIN, USER, texts
            )
            if small_texts:
                small = await search_in_process(
                    runtime, questions, args.warmup, SMALL_USER, SMALL_RUNS
                )
                small["served_recall_at_10_vs_exact"] = await served_recall(
                    runtime, questions, SMALL_USER
                )
                in_process["small_user"] = small
        finally:
            await runtime.stop()
        # The first search above made ArcadeDB build the vector graph of
        # everything just loaded (about a minute at 100k), and the searches
        # after it share the JVM heap with that build's garbage. A service
        # restarted on its data, like the HTTP server below, does not: time
        # that state too, in-process.
        runtime = await Runtime.start(settings)
        try:
            settled = await search_in_process(runtime, questions, args.warmup)
        finally:
            await runtime.stop()
        http = search_over_http(
            data_dir, graph.env, questions, args.warmup, small_user=bool(small_texts)
        )
    return {
        **report_head("search_latency", graph),
        "settings": {
            "memories": args.memories,
            "small_user_memories": args.small_memories,
            "searches": len(questions),
            "warmup": args.warmup,
            "top_k": 10,
            "filters": "kinds EPISODIC+SEMANTIC (2/3 of memories), minImportance 0.2",
        },
        "insert": loaded,
        "in_process": in_process,
        "in_process_restarted": settled,
        "http": http,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument(
        "--small-memories", type=int, default=3000, help="a second, small user (0: none)"
    )
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=20, help="searches before timing")
    parser.add_argument("--data-dir", default=None, help="default: a fresh temporary directory")
    parser.add_argument(
        "--no-entities",
        dest="entities",
        action="store_false",
        help="load the memories without the entities they mention (no entity walk)",
    )
    graphs.add_argument(parser)
    report_cli(parser, run, show)


def show(result: Report, args: argparse.Namespace) -> None:
    """The insert rate, then p50 / p95 per kind of search, in-process and over HTTP."""
    insert, local, http = result["insert"], result["in_process"], result["http"]
    settled = result["in_process_restarted"]
    print(f"machine: {result['machine']['cpus']} cpus, {result['machine']['cpu']}")
    graphs.show_graph(result)
    print(
        f"insert {insert['memories']} memories: {insert['writes_per_s']}/s in batches of "
        f"{args.batch} (embedding apart: {insert['embed_s_or_cached']} s, 0 when cached)"
    )
    print(f"first search after the restart: {local['first_query_after_start_ms']} ms")
    print("p50 / p95 ms: in-process (the process that built the vector graph),")
    print("in-process after a restart, and GraphQL over HTTP (a separate server process)")
    for name in RUNS:
        cells = [
            f"{run[name]['latency_ms']['p50']:>6} / {run[name]['latency_ms']['p95']:<6}"
            for run in (local, settled, http)
        ]
        print(f"{name:16} " + "   ".join(cells))
    recall = local["vector"]["index_recall_at_10_vs_exact"]
    print(f"vector index recall@10 vs exact cosine: {recall}")
    print("LoCoMo evidence recall among these memories (bench/scale_recall.py):")
    print(scale_recall.describe(local["locomo_evidence_recall"]))
    if "small_user" in local:
        small, small_http = local["small_user"], http["small_user"]
        print(f"small user ({args.small_memories} memories), in-process and over HTTP:")
        for name in SMALL_RUNS:
            cells = [
                f"{run[name]['latency_ms']['p50']:>6} / {run[name]['latency_ms']['p95']:<6}"
                for run in (small, small_http)
            ]
            print(f"{name:16} " + "   ".join(cells))
        print(f"small user: served top-10 recall vs exact {small['served_recall_at_10_vs_exact']}")
    print(f"serve start to first answer: {http['start_to_first_answer_s']} s")


if __name__ == "__main__":
    main()
