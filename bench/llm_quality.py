"""What a local model remembers, beside the offline extractor, on the same turns.

For the first conversation of each dev file, its first ``--messages`` turns
(across sessions, in order) are imported as ``hippograph import`` does (one
user per speaker, memorize per session, a fresh embedded graph per run), once
with the offline extractor and once with a model served by llama.cpp
(:mod:`bench.local_llm`, the 1.5B model by default, one thread, one slot),
then measured:

* **facts per message**: SEMANTIC, EVENT and PROFILE memories per message;
* **near-duplicate share**: memories with another memory of the same user at
  cosine ≥ 0.90 (all-MiniLM-L6-v2, as bench/memory_quality.py);
* **attribution**: of those facts, the share whose user spoke at least one
  of the messages it derives from (the dev files label every turn);
* **recall@10** at memory granularity: the questions whose evidence lies in
  the imported turns, HYBRID top 10 for the user a question names, hits
  mapped to turns through provenance (``hippograph bench locomo``'s scoring);
* **tokens** in and out, and **minutes per 100 messages** of the import.

python -m bench.llm_quality [--messages 60] [--model qwen2.5-coder-1.5b] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import LOCOMO, REALTALK, dev_file, machine
from bench.local_llm import LARGE, MODELS, running
from bench.memory_quality import (
    all_memories,
    asked_user,
    import_one,
    message_sources,
    near_rows,
    normalised_vectors,
    settings_for,
    share,
)
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.adapters.openai_llm import OpenAICompatibleLLM
from hippograph.benchmark.locomo import _dia_ids
from hippograph.benchmark.recall import mean, recall_at_k
from hippograph.importers.conversations import ConversationImport, parse_locomo
from hippograph.importers.locomo import Question, load_locomo
from hippograph.models import MemoryKind
from hippograph.modes import SearchMode
from hippograph.runtime import Runtime
from hippograph.scoring import SearchMethod
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.search import SearchRequest
from hippograph.settings import EmbeddingSettings, LLMSettings, Settings

FACTS = (MemoryKind.SEMANTIC, MemoryKind.EVENT, MemoryKind.PROFILE)
K = 10


def first_turns(conversation: ConversationImport, count: int) -> ConversationImport:
    """The conversation cut to its first ``count`` messages (sessions in order)."""
    sessions = []
    left = count
    for session in conversation.sessions:
        if left <= 0:
            break
        sessions.append(replace(session, messages=session.messages[:left]))
        left -= len(sessions[-1].messages)
    return replace(conversation, sessions=tuple(sessions))


def answerable(questions: Sequence[Question], turns: set[str]) -> list[Question]:
    """The scorable questions whose every evidence turn was imported."""
    return [q for q in questions if q.scorable and q.evidence and set(q.evidence) <= turns]


async def _recall(
    runtime: Runtime,
    questions: Sequence[Question],
    users: Sequence[str],
    names: dict[str, str],
) -> float | None:
    scores = []
    cache: dict[str, list[str]] = {}
    for question in questions:
        request = SearchRequest(
            user_id=asked_user(question.question, users, names),
            query=question.question,
            top_k=K,
            method=SearchMethod.HYBRID,
            mode=SearchMode.NORMAL,
            touch=False,
        )
        result = await runtime.services.search.search(SETTINGS_ADMIN, request)
        ranked = [await _dia_ids(runtime, hit.id, cache) for hit in result.hits]
        scores.append(recall_at_k(ranked, question.evidence, K))
    return round(mean(scores), 3) if scores else None


async def measure(
    settings: Settings,
    conversation: ConversationImport,
    questions: Sequence[Question],
    reference: SentenceTransformerEmbedder,
) -> dict[str, Any]:
    """Import ``conversation`` with ``settings`` on a fresh graph and measure what it kept."""
    runtime = await Runtime.start(settings)
    try:
        started = time.perf_counter()
        await import_one(runtime, conversation)
        seconds = time.perf_counter() - started
        users = [p.user_id for p in conversation.people]
        names = {p.user_id: p.name for p in conversation.people}
        totals = dict.fromkeys(("memories", "near", "facts", "attributed"), 0)
        for user_id in users:
            memories = await all_memories(runtime, user_id)
            totals["memories"] += len(memories)
            vectors = await normalised_vectors(reference, [m.content for m in memories])
            totals["near"] += int(near_rows(vectors).sum())
            facts = [m for m in memories if m.kind in FACTS]
            sources = await message_sources(runtime, [m.id for m in facts])
            totals["facts"] += len(facts)
            totals["attributed"] += sum(
                1 for m in facts if names[user_id] in {s.speaker for s in sources[m.id]}
            )
        messages = conversation.message_count
        spent = runtime.llm.spent if isinstance(runtime.llm, OpenAICompatibleLLM) else None
        return {
            "extractor": runtime.llm.name,
            "facts_per_message": round(totals["facts"] / messages, 3),
            "memories_per_message": round(totals["memories"] / messages, 3),
            "near_duplicate_share": share(totals["near"], totals["memories"]),
            "attribution": share(totals["attributed"], totals["facts"]),
            f"recall@{K}": await _recall(runtime, questions, users, names),
            "tokens_in": spent.prompt_tokens if spent else 0,
            "tokens_out": spent.completion_tokens if spent else 0,
            "requests": spent.calls if spent else 0,
            "minutes_per_100_messages": round(seconds / messages * 100 / 60, 2),
        }
    finally:
        await runtime.stop()


def _with_model(settings: Settings, base_url: str, model: str) -> Settings:
    llm = LLMSettings(
        provider="openai",
        base_url=base_url,
        model=model,
        timeout_s=900,
        max_retries=1,
        concurrency=1,
    )
    return settings.model_copy(update={"llm": llm})


async def run(files: Sequence[Path], count: int, model: str) -> dict[str, Any]:
    """Both extractors on the first ``count`` turns of each file's first conversation."""
    reference = await SentenceTransformerEmbedder.load(EmbeddingSettings(model="all-minilm-l6-v2"))
    report: dict[str, Any] = {"machine": machine(), "model": MODELS[model].upstream, "files": []}
    for data in files:
        dev_file(data)  # before the model's minute of start-up
    with running(model, threads=1, parallel=1) as base_url:
        for data in files:
            samples = json.loads(await asyncio.to_thread(data.read_text))
            conversation = first_turns(parse_locomo(samples, data.name)[0], count)
            turns = {m.client_id for s in conversation.sessions for m in s.messages if m.client_id}
            questions = answerable((await asyncio.to_thread(load_locomo, data))[0].questions, turns)
            row: dict[str, Any] = {
                "data": data.name,
                "conversation": conversation.key,
                "messages": conversation.message_count,
                "questions": len(questions),
            }
            for label in ("offline", "llm"):
                settings = settings_for(Path(tempfile.mkdtemp(prefix="hippograph-llmq-")))
                if label == "llm":
                    settings = _with_model(settings, base_url, model)
                row[label] = await measure(settings, conversation, questions, reference)
                print(json.dumps({data.name: {label: row[label]}}), flush=True)
            report["files"].append(row)
    return report


def main() -> None:
    """Run and print the report (and write it with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="*", default=[LOCOMO, REALTALK])
    parser.add_argument("--messages", type=int, default=60, help="turns of each conversation")
    parser.add_argument("--model", choices=sorted(MODELS), default=LARGE)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report = asyncio.run(run(args.data, args.messages, args.model))
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
