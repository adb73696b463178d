"""`hippograph bench locomo`: retrieval recall on LoCoMo-format conversations.

For each conversation: one user, its sessions and every turn as a message
(client id = the turn's dia_id, time = the session's date), memories built by
the pipeline at the chosen granularity, then every question searched with
each method; hits are mapped back to dia_ids through provenance and scored
with the official recall (k is a budget of distinct turns).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hippograph.benchmark.recall import mean, percentile, recall_at_k
from hippograph.benchmark.turns import TurnMemoryService
from hippograph.clock import utc_now
from hippograph.importers.locomo import Conversation, Question, load_locomo
from hippograph.models import Direction, Message
from hippograph.modes import SearchMode
from hippograph.runtime import Runtime
from hippograph.scoring import SearchMethod
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memorize import MemorizeRequest
from hippograph.services.search import SearchRequest, SearchTarget
from hippograph.settings import (
    GraphSettings,
    Settings,
)

GRANULARITIES = ("turn", "memunit", "memory")
# off: what memorize built, as it left it. after: then one reflect run per
# conversation, whose consolidated facts drop out of default search.
REFLECTION = ("off", "after")


async def load_conversation(
    runtime: Runtime, conversation: Conversation, granularity: str, reflect: bool = False
) -> str:
    """Store one conversation as a user's messages and memories; returns the user id.

    Reflection runs only when ``reflect`` says so, once, after the whole
    conversation is in: left to memorize's own reflect jobs, which facts a
    reflection takes would depend on how far loading had got when the job ran.
    """
    services = runtime.services
    store = runtime.connection.store
    turns = TurnMemoryService(
        store.messages,
        store.memories,
        services.users,
        runtime.embedder,
        utc_now,
        runtime.settings.memorize.turn_context_weight,
        runtime.settings.memorize.entities,
    )
    user_id = conversation.sample_id
    await services.users.create_user(SETTINGS_ADMIN, user_id, " & ".join(conversation.speakers))
    for locomo_session in conversation.sessions:
        session = await services.users.create_session(
            SETTINGS_ADMIN, user_id, f"session {locomo_session.number}"
        )
        messages = locomo_session.message_inputs()
        for start in range(0, len(messages), 500):
            inputs = messages[start : start + 500]
            if granularity == "turn":
                await services.messages.add_messages(SETTINGS_ADMIN, session.id, inputs)
            else:
                request = MemorizeRequest(
                    user_ids=(user_id,),
                    session_id=session.id,
                    messages=tuple(inputs),
                    run_async=False,
                )
                await services.memorize.memorize(SETTINGS_ADMIN, request)
        if granularity == "turn":
            await turns.build(SETTINGS_ADMIN, session.id)
    if reflect:
        await services.reflection.reflect(user_id, force=True)
    return user_id


async def _dia_ids(runtime: Runtime, node_id: str, cache: dict[str, list[str]]) -> list[str]:
    """The dia_ids a hit stands for: its source messages' client ids, in order.

    A memory derived straight from messages (an event item, a fact) stands
    for those; one derived only through MemUnits or other memories (an
    episode, a reflection) stands for every message it reaches.
    """
    if node_id not in cache:
        walk = await runtime.services.provenance.provenance(
            SETTINGS_ADMIN, node_id, 6, Direction.DOWN
        )
        reached = [n for n in (walk.nodes if walk else ()) if isinstance(n, Message)]
        direct = {e.target for e in (walk.edges if walk else ()) if e.source == node_id}
        own = [m for m in reached if m.id in direct]
        messages = sorted(own or reached, key=lambda m: (m.ts, m.seq))
        cache[node_id] = [m.client_id for m in messages if m.client_id]
    return cache[node_id]


async def evaluate(
    runtime: Runtime,
    conversations: Sequence[Conversation],
    methods: Sequence[SearchMethod],
    ks: Sequence[int],
    granularity: str,
    progress: bool,
    reflect: bool = False,
    per_question: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Load every conversation, ask every question with every method, aggregate.

    A question whose evidence names no turn (malformed, or a turn the file
    does not have) cannot be scored: it is left out of every recall and
    counted under ``unscorable``, never scored as recalled. Only a question
    with no evidence at all scores 1, as in the official evaluation.
    ``per_question`` receives one row per question and method.
    """
    total = sum(len(c.questions) for c in conversations) * len(methods)
    bar = tqdm(
        total=total, disable=not progress, file=sys.stderr, desc="questions", mininterval=1.0
    )
    recalls: dict[SearchMethod, dict[str, dict[int, list[float]]]] = {m: {} for m in methods}
    latencies: dict[SearchMethod, list[float]] = {m: [] for m in methods}
    for conversation in conversations:
        bar.set_postfix_str(f"loading {conversation.sample_id}")
        user_id = await load_conversation(runtime, conversation, granularity, reflect)
        bar.set_postfix_str(f"searching {conversation.sample_id}")
        cache: dict[str, list[str]] = {}
        for method in methods:
            for question in conversation.questions:
                ranked = await _ask(
                    runtime,
                    user_id,
                    question.question,
                    method,
                    max(ks),
                    granularity,
                    latencies[method],
                    cache,
                )
                scores = {k: recall_at_k(ranked, question.evidence, k) for k in ks}
                if question.scorable:
                    for category in (question.category, "overall"):
                        per_k = recalls[method].setdefault(category, {k: [] for k in ks})
                        for k in ks:
                            per_k[k].append(scores[k])
                if per_question is not None:
                    per_question(_question_row(conversation, question, method, ranked, scores))
                bar.update(1)
    bar.close()
    report: dict[str, Any] = {}
    for method in methods:
        by_category = {
            category: {f"recall@{k}": round(mean(values[k]), 4) for k in ks}
            for category, values in sorted(recalls[method].items())
            if category != "overall"
        }
        overall = recalls[method].get("overall", {k: [] for k in ks})
        report[method.value] = {
            "overall": {f"recall@{k}": round(mean(overall[k]), 4) for k in ks},
            "by_category": by_category,
            "latency_ms": {
                "p50": round(percentile(latencies[method], 0.5), 2),
                "p95": round(percentile(latencies[method], 0.95), 2),
            },
        }
    report["question_counts"] = question_counts(conversations)
    return report


async def _ask(
    runtime: Runtime,
    user_id: str,
    query: str,
    method: SearchMethod,
    top_k: int,
    granularity: str,
    latencies: list[float],
    cache: dict[str, list[str]],
) -> list[list[str]]:
    """One search; per hit in rank order, the turns (dia_ids) it stands for."""
    request = SearchRequest(
        user_id=user_id,
        query=query,
        top_k=top_k,
        method=method,
        mode=SearchMode.NORMAL,
        touch=False,
        target=SearchTarget.MEMUNIT if granularity == "memunit" else SearchTarget.MEMORY,
    )
    started = time.perf_counter()
    result = await runtime.services.search.search(SETTINGS_ADMIN, request)
    latencies.append((time.perf_counter() - started) * 1000)
    return [await _dia_ids(runtime, hit.id, cache) for hit in result.hits]


def question_counts(conversations: Sequence[Conversation]) -> dict[str, Any]:
    """How many questions there are per category, and which could not be scored and why."""
    questions = [q for c in conversations for q in c.questions]
    by_category: dict[str, dict[str, int]] = {}
    for q in questions:
        counts = by_category.setdefault(q.category, {"questions": 0, "scored": 0})
        counts["questions"] += 1
        counts["scored"] += int(q.scorable)
    return {
        "total": len(questions),
        "scored": sum(q.scorable for q in questions),
        "no_evidence_scored_as_1": sum(not q.raw_evidence for q in questions),
        "unscorable": sum(not q.scorable for q in questions),
        "partly_unparsed": sum(bool(q.unparsed) and q.scorable for q in questions),
        "by_category": dict(sorted(by_category.items())),
    }


def _question_row(
    conversation: Conversation,
    question: Question,
    method: SearchMethod,
    ranked: list[list[str]],
    scores: dict[int, float],
) -> dict[str, Any]:
    return {
        "sample_id": conversation.sample_id,
        "question": question.question,
        "category": question.category,
        "evidence": list(question.evidence),
        "raw_evidence": list(question.raw_evidence),
        "unparsed_evidence": list(question.unparsed),
        "scored": question.scorable,
        "method": method.value,
        "retrieved": ranked,
        "recall": {f"@{k}": round(v, 4) for k, v in scores.items()} if question.scorable else None,
    }


async def run_locomo(
    data: Path,
    methods: Sequence[SearchMethod],
    ks: Sequence[int],
    granularity: str = "turn",
    progress: bool = True,
    data_dir: Path | None = None,
    reflection: str = "off",
    per_question: Path | None = None,
    base: Settings | None = None,
) -> dict[str, Any]:
    """The benchmark on a fresh embedded store; the result as one JSON-ready dict.

    ``base``: the settings to run with (the environment's by default), on a
    fresh embedded graph with in-process jobs, reflecting only when
    ``reflection`` asks.

    ``per_question``: a JSONL file to write, one line per question and method
    (question, category, evidence, retrieved dia_ids per hit, recall@k).
    """
    if granularity not in GRANULARITIES:
        raise ValueError(f"granularity must be one of {', '.join(GRANULARITIES)}")
    if reflection not in REFLECTION:
        raise ValueError(f"reflection must be one of {', '.join(REFLECTION)}")
    conversations = load_locomo(data)
    directory = data_dir or Path(tempfile.mkdtemp(prefix="hippograph-locomo-"))
    base = base or Settings()
    settings = base.model_copy(
        update={
            "graph": GraphSettings(data_dir=directory),
            "memorize": base.memorize.model_copy(update={"reflect_after_write": False}),
            "reflection": base.reflection.model_copy(update={"sweep_interval_s": 0}),
            # an embedded graph runs its jobs in this process (no Redis, no worker)
            "jobs": base.jobs.model_copy(update={"mode": "inprocess"}),
        }
    )
    runtime = await Runtime.start(settings)
    rows = per_question.open("w", encoding="utf-8") if per_question else None

    def write_row(row: dict[str, Any]) -> None:
        assert rows is not None
        rows.write(json.dumps(row, ensure_ascii=False) + "\n")

    try:
        report = await evaluate(
            runtime,
            conversations,
            methods,
            ks,
            granularity,
            progress,
            reflection == "after",
            write_row if rows else None,
        )
    finally:
        if rows is not None:
            rows.close()
        await runtime.stop()
    report["data"] = str(data)
    report["questions"] = sum(len(c.questions) for c in conversations)
    report["granularity"] = granularity
    report["reflection"] = reflection
    return report


def format_table(report: dict[str, Any], methods: Sequence[SearchMethod], ks: Sequence[int]) -> str:
    """The report as a readable table."""
    header = f"{'method':8} {'category':12} " + " ".join(f"{f'R@{k}':>6}" for k in ks)
    counts = report["question_counts"]
    lines = [
        f"{report['questions']} questions from {report['data']} ({report['granularity']}): "
        f"{counts['scored']} scored, {counts['unscorable']} unscorable (evidence names no "
        f"turn), {counts['no_evidence_scored_as_1']} without evidence (scored 1)",
        header,
    ]
    for method in methods:
        entry = report[method.value]
        rows = [("overall", entry["overall"]), *entry["by_category"].items()]
        for category, values in rows:
            cells = " ".join(f"{values[f'recall@{k}']:6.3f}" for k in ks)
            scored = counts["by_category"].get(category, {"scored": counts["scored"]})["scored"]
            lines.append(f"{method.value:8} {category:12} {cells}  ({scored} questions)")
        latency = entry["latency_ms"]
        lines.append(
            f"{method.value:8} {'latency':12} p50 {latency['p50']} ms, p95 {latency['p95']} ms"
        )
    return "\n".join(lines)
