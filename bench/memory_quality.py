"""What memorize keeps, measured: copies, repeats, whose it is, and what search spends slots on.

Each conversation of the dev files is imported as ``hippograph import``
would (offline extractor, in-process jobs, a fresh embedded graph per
file), then:

* **memories per message**, by kind;
* **near-duplicates**: the share of memories with another memory of the
  same user at cosine ≥ 0.90 (all-MiniLM-L6-v2, the scale the figure was
  first taken on, whatever model serves);
* **near-duplicates by their words**: the same, with the dated opening of a
  memory in its speaker's words ("On 7 May 2023, Caroline said: “") left out;
* **restatements**: facts and profile attributes whose words (three letters
  or more) are, to 80% or more, the words of an event of the same message;
* **attribution**: profile attributes whose source message was said by
  their user, and reflections whose facts were all said by theirs (the dev
  files label every turn with its speaker);
* **top-5 repeats**: over the dev questions, HYBRID's top 5 for the user the
  question names (else the first speaker), the share of slots whose hit has
  a source message or a near-duplicate text (cosine ≥ 0.90) in common with a
  better-ranked hit; then the share reflections take after a forced reflect.

Run it on the code before a change and after (a worktree of the old commit
with ``PYTHONPATH``): the importer then files one user per conversation or
one per speaker, whichever that code does.

python -m bench.memory_quality [--data FILE ...] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import LOCOMO, REALTALK, dev_file, machine
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.clock import utc_now
from hippograph.extraction.assemble import quoted_words
from hippograph.importers.conversations import ConversationImport, parse_locomo
from hippograph.importers.ingest import import_conversations
from hippograph.importers.locomo import parse_sample
from hippograph.models import Memory, MemoryFilter, MemoryKind, Message
from hippograph.modes import SearchMode
from hippograph.runtime import Runtime
from hippograph.scoring import SearchMethod
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.search import SearchRequest
from hippograph.settings import EmbeddingSettings, GraphSettings, Settings
from hippograph.vector_math import unit_rows

NEAR = 0.90
_WORD = re.compile(r"[a-z0-9']{3,}")
EVERYTHING = MemoryFilter(include_consolidated=True)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


async def all_memories(runtime: Runtime, user_id: str) -> list[Memory]:
    found: list[Memory] = []
    after = None
    while True:
        page = await runtime.services.memories.list_memories(
            SETTINGS_ADMIN, user_id, EVERYTHING, 100, after
        )
        found.extend(page.items)
        if not page.has_next:
            return found
        after = page.end_cursor


async def message_sources(runtime: Runtime, ids: Sequence[str]) -> dict[str, list[Message]]:
    derived = await runtime.services.memories.derived_from(SETTINGS_ADMIN, list(ids))
    return {i: [n for n in derived.get(i, []) if isinstance(n, Message)] for i in ids}


def near_rows(vectors: np.ndarray) -> np.ndarray:
    """Per row, whether another row sits at cosine ≥ NEAR."""
    if len(vectors) < 2:
        return np.zeros(len(vectors), dtype=bool)
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -1.0)
    near: np.ndarray = (sims >= NEAR).any(axis=1)
    return near


async def normalised_vectors(
    reference: SentenceTransformerEmbedder, texts: Sequence[str]
) -> np.ndarray:
    """The reference model's vectors of ``texts``, each of length 1, as float32 rows."""
    if not texts:
        return np.zeros((0, reference.dimensions), dtype=np.float32)
    return unit_rows(await reference.embed(list(texts))).astype(np.float32)


async def measure_file(
    data: Path, reference: SentenceTransformerEmbedder, settings: Settings
) -> dict[str, Any]:
    """Import ``data`` into a fresh graph and measure what it kept and what search returns."""
    samples = json.loads(await asyncio.to_thread(dev_file(data).read_text))
    conversations = parse_locomo(samples, data.name)
    questions = {c.sample_id: c.questions for c in map(parse_sample, samples)}
    runtime = await Runtime.start(settings)
    kinds: Counter[str] = Counter()
    totals = Counter[str]()
    try:
        for conversation in conversations:
            await import_one(runtime, conversation)
            people = getattr(conversation, "people", None)
            users = [p.user_id for p in people] if people else [conversation.user_id]
            names = (
                {p.user_id: p.name for p in people}
                if people
                else {conversation.user_id: conversation.user_name}
            )
            totals["messages"] += conversation.message_count
            for user_id in users:
                memories = await all_memories(runtime, user_id)
                kinds.update(m.kind.value for m in memories)
                totals["memories"] += len(memories)
                vectors = await normalised_vectors(reference, [m.content for m in memories])
                totals["near_duplicates"] += int(near_rows(vectors).sum())
                words_only = await normalised_vectors(
                    reference, [quoted_words(m.content) for m in memories]
                )
                totals["near_duplicate_words"] += int(near_rows(words_only).sum())
                sources = await message_sources(runtime, [m.id for m in memories])
                events_by_message: dict[str, list[set[str]]] = {}
                for m in memories:
                    if m.kind is MemoryKind.EVENT:
                        quote = m.content.split(":", 1)[-1]
                        for s in sources[m.id]:
                            events_by_message.setdefault(s.id, []).append(_words(quote))
                for m in memories:
                    if m.kind not in (MemoryKind.SEMANTIC, MemoryKind.PROFILE):
                        continue
                    totals["derived"] += 1
                    words = _words(m.content.split(":", 1)[-1])
                    events = [e for s in sources[m.id] for e in events_by_message.get(s.id, [])]
                    if words and any(len(words & e) >= 0.8 * len(words) for e in events):
                        totals["restatements"] += 1
                    if m.kind is MemoryKind.PROFILE:
                        totals["profiles"] += 1
                        speakers = {s.speaker for s in sources[m.id]}
                        totals["profiles_right"] += int(speakers <= {names[user_id]})
            await _measure_search(runtime, reference, users, names, conversation, questions, totals)
        return {
            "data": data.name,
            "messages": totals["messages"],
            "memories": totals["memories"],
            "memories_per_message": {
                k: round(v / totals["messages"], 3) for k, v in sorted(kinds.items())
            },
            "all_per_message": round(totals["memories"] / totals["messages"], 3),
            "near_duplicate_share": share(totals["near_duplicates"], totals["memories"]),
            "near_duplicate_share_words": share(totals["near_duplicate_words"], totals["memories"]),
            "restatement_share": share(totals["restatements"], totals["derived"]),
            "profile_attribution": share(totals["profiles_right"], totals["profiles"]),
            "reflection_attribution": share(totals["reflections_right"], totals["reflections"]),
            "top5_repeat_share": share(totals["repeats"], totals["slots"]),
            "top5_reflection_share": share(totals["reflection_slots"], totals["slots_after"]),
        }
    finally:
        await runtime.stop()


async def import_one(runtime: Runtime, conversation: ConversationImport) -> None:
    """Store one conversation as ``hippograph import`` does."""
    await import_conversations(
        runtime.services,
        runtime.connection.store.users,
        [conversation],
        chunk_size=runtime.settings.limits.max_messages_per_call,
        clock=utc_now,
    )


def share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def asked_user(question: str, users: Sequence[str], names: dict[str, str]) -> str:
    """The user a question names (by first name), else the first."""
    lowered = question.lower()
    for user_id in users:
        if re.search(rf"\b{re.escape(names[user_id].split()[0].lower())}\b", lowered):
            return user_id
    return users[0]


async def _top5(runtime: Runtime, user_id: str, question: str) -> list[str]:
    request = SearchRequest(
        user_id=user_id,
        query=question,
        top_k=5,
        method=SearchMethod.HYBRID,
        mode=SearchMode.NORMAL,
        touch=False,
    )
    result = await runtime.services.search.search(SETTINGS_ADMIN, request)
    return [hit.id for hit in result.hits]


async def _measure_search(
    runtime: Runtime,
    reference: SentenceTransformerEmbedder,
    users: Sequence[str],
    names: dict[str, str],
    conversation: Any,
    questions: dict[str, Any],
    totals: Counter[str],
) -> None:
    # The code before per-speaker users had no key: a sample was its user.
    asked = questions.get(getattr(conversation, "key", None) or conversation.user_id, ())
    for question in asked:
        ids = await _top5(runtime, asked_user(question.question, users, names), question.question)
        if not ids:
            continue
        memories = await runtime.services.memories.get_memories(SETTINGS_ADMIN, ids)
        hits = [memories[i] for i in ids if i in memories]
        sources = await message_sources(runtime, [h.id for h in hits])
        vectors = await normalised_vectors(reference, [h.content for h in hits])
        for index, hit in enumerate(hits):
            totals["slots"] += 1
            mine = {s.id for s in sources[hit.id]}
            better = hits[:index]
            same_source = any(mine & {s.id for s in sources[b.id]} for b in better)
            same_text = index > 0 and float((vectors[:index] @ vectors[index]).max()) >= NEAR
            totals["repeats"] += int(same_source or same_text)
    for user_id in users:
        await runtime.services.reflection.reflect(user_id, force=True)
        reflections = [
            m for m in await all_memories(runtime, user_id) if m.kind is MemoryKind.REFLECTION
        ]
        summarised = await runtime.services.memories.summaries(
            SETTINGS_ADMIN, [r.id for r in reflections], by=False
        )
        for reflection in reflections:
            facts = summarised.get(reflection.id, [])
            said = await message_sources(runtime, [f.id for f in facts])
            speakers = {s.speaker for f in facts for s in said[f.id]}
            totals["reflections"] += 1
            totals["reflections_right"] += int(speakers <= {names[user_id]})
    for question in asked:
        ids = await _top5(runtime, asked_user(question.question, users, names), question.question)
        memories = await runtime.services.memories.get_memories(SETTINGS_ADMIN, ids)
        totals["slots_after"] += len(ids)
        totals["reflection_slots"] += sum(
            1 for i in ids if i in memories and memories[i].kind is MemoryKind.REFLECTION
        )


def settings_for(data_dir: Path) -> Settings:
    """The environment's settings on a fresh graph, jobs in-process, reflection only when forced."""
    base = Settings()
    return base.model_copy(
        update={
            "graph": GraphSettings(data_dir=data_dir),
            "memorize": base.memorize.model_copy(update={"reflect_after_write": False}),
            "reflection": base.reflection.model_copy(update={"sweep_interval_s": 0}),
            "jobs": base.jobs.model_copy(update={"mode": "inprocess"}),
        }
    )


async def main(files: Sequence[Path], out: Path | None) -> None:
    """Measure each file; print a JSON report (and write it to ``out``)."""
    reference = await SentenceTransformerEmbedder.load(EmbeddingSettings(model="all-minilm-l6-v2"))
    report: dict[str, Any] = {"machine": machine(), "files": []}
    for data in files:
        settings = settings_for(Path(tempfile.mkdtemp(prefix="hippograph-quality-")))
        report["files"].append(await measure_file(data, reference, settings))
        print(json.dumps(report["files"][-1], indent=1), flush=True)
    if out is not None:
        await asyncio.to_thread(out.write_text, json.dumps(report, indent=1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="*", default=[LOCOMO, REALTALK])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    asyncio.run(main(args.data, args.json))
