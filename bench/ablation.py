"""What each retrieval signal adds: recall per category with one signal switched off at a time.

Each dev file is loaded once, into a fresh embedded graph, at the chosen
granularity (``hippograph bench locomo``'s loading, with the environment's
settings); then every question is asked once per configuration. The
signals are per-request weights, so switching one off needs no reload:

* ``full``: the defaults (HYBRID, WEIGHTED).
* ``-context``: ``contextWeight`` 0, which also stops the turns around the
  best hits from joining the candidates.
* ``-time``: ``timeWeight`` 0.
* ``-entities``: ``entityWeight`` 0 (when the build has an entity signal).
* ``-all``: all three at 0 (relevance, recency and importance only).
* ``<weight>=<value>``: one weight set, the others default (``context_weight=0.4``).
* ``vector``, ``keyword``: that method alone, default weights (``full`` is HYBRID).
* ``kinds=event|semantic``: only memories of those kinds (what a kind adds).
* parts joined by ``+`` combine: ``vector+context_weight=0``.
* ``dense``: no service at all, the plain baseline: each turn (``<speaker> said,
  "<text>"``) embedded alone with the same model and its prefixes, ranked by cosine.

python -m bench.ablation [--data FILE ...] [--granularity turn|memunit|memory] [--k 5,10]
    [--configs full,-context,-time,-entities,-all] [--rows out.jsonl]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import LOCOMO, REALTALK, dev_file, machine
from hippograph.benchmark.locomo import GRANULARITIES, _dia_ids, load_conversation
from hippograph.benchmark.recall import mean, percentile, recall_at_k
from hippograph.importers.locomo import Conversation, load_locomo
from hippograph.models import MemoryFilter, MemoryKind
from hippograph.modes import SearchMode
from hippograph.runtime import Runtime
from hippograph.scoring import ScoringWeights, SearchMethod
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.search import SearchRequest, SearchTarget
from hippograph.settings import GraphSettings, Settings

SIGNALS = {"context": "context_weight", "time": "time_weight", "entities": "entity_weight"}
WEIGHT_NAMES = set(ScoringWeights.model_fields)
DENSE = "dense"


async def dense_ranking(
    runtime: Runtime, conversation: Conversation, questions: Sequence[str], k: int
) -> list[list[list[str]]]:
    """Per question, the ``k`` turns whose own embedding is nearest the question's.

    Each turn as memorize embeds one (``<speaker> said, "<text>"``), with the
    model's passage and query prefixes.
    """
    turns = [m for s in conversation.sessions for m in s.message_inputs()]
    vectors = await runtime.embedder.embed([f'{t.speaker} said, "{t.content}"' for t in turns])
    asked = await runtime.embedder.embed_queries(list(questions))
    ranked = []
    for query in asked:
        scores = [sum(a * b for a, b in zip(query, v, strict=True)) for v in vectors]
        order = sorted(range(len(turns)), key=lambda i: -scores[i])[:k]
        ranked.append([[turns[i].client_id or ""] for i in order])
    return ranked


@dataclass(frozen=True, slots=True)
class Config:
    """One way of asking: a method and its weights, or the dense baseline."""

    method: SearchMethod
    weights: ScoringWeights
    dense: bool = False
    kinds: tuple[MemoryKind, ...] | None = None


def configuration(name: str) -> Config | None:
    """What a configuration name stands for; None when this build lacks a signal it names.

    Parts joined by ``+`` combine: ``vector+context_weight=0``.
    """
    method = SearchMethod.HYBRID
    changes: dict[str, Any] = {}
    kinds: tuple[MemoryKind, ...] | None = None
    for part in name.split("+"):
        if part == DENSE:
            return Config(method, ScoringWeights(), dense=True)
        if part in ("vector", "keyword", "hybrid"):
            method = SearchMethod(part)
        elif part.startswith("kinds="):
            kinds = tuple(MemoryKind(k) for k in part.removeprefix("kinds=").split("|"))
        elif "=" in part:  # a weight set to a value: "context_weight=0.4"
            weight, _, value = part.partition("=")
            if weight not in WEIGHT_NAMES:
                raise SystemExit(f"unknown weight {weight!r}")
            changes[weight] = int(value) if weight == "rrf_k" else float(value)
        elif part == "-all":
            changes |= {w: 0.0 for w in SIGNALS.values() if w in WEIGHT_NAMES}
        elif part != "full":
            signal = SIGNALS.get(part.removeprefix("-"))
            if signal is None or not part.startswith("-"):
                raise SystemExit(f"unknown configuration {part!r}")
            if signal not in WEIGHT_NAMES:
                return None
            changes[signal] = 0.0
    return Config(method, ScoringWeights(**changes), kinds=kinds)


async def run_file(
    data: Path, granularity: str, configs: Sequence[str], ks: Sequence[int], rows: Any
) -> dict[str, Any]:
    """Load ``data`` once; recall per configuration and category, and search latency."""
    conversations = load_locomo(dev_file(data))
    base = Settings()
    settings = base.model_copy(
        update={
            "graph": GraphSettings(data_dir=Path(tempfile.mkdtemp(prefix="hippograph-abl-"))),
            "memorize": base.memorize.model_copy(update={"reflect_after_write": False}),
            "reflection": base.reflection.model_copy(update={"sweep_interval_s": 0}),
            "jobs": base.jobs.model_copy(update={"mode": "inprocess"}),
        }
    )
    runtime = await Runtime.start(settings)
    recalls: dict[str, dict[str, dict[int, list[float]]]] = {c: {} for c in configs}
    latencies: dict[str, list[float]] = {c: [] for c in configs}
    try:
        for conversation in conversations:
            user_id = await load_conversation(runtime, conversation, granularity)
            target = SearchTarget.MEMUNIT if granularity == "memunit" else SearchTarget.MEMORY
            cache: dict[str, list[str]] = {}
            for name in configs:
                config = configuration(name)
                if config is None:
                    continue
                baseline: list[list[list[str]]] = []
                if config.dense:
                    questions = [q.question for q in conversation.questions]
                    baseline = await dense_ranking(runtime, conversation, questions, max(ks))
                for index, question in enumerate(conversation.questions):
                    request = SearchRequest(
                        user_id=user_id,
                        query=question.question,
                        top_k=max(ks),
                        method=config.method,
                        weights=config.weights,
                        mode=SearchMode.NORMAL,
                        filter=MemoryFilter(kinds=config.kinds),
                        touch=False,
                        target=target,
                    )
                    if baseline:
                        ranked = baseline[index]
                    else:
                        started = time.perf_counter()
                        result = await runtime.services.search.search(SETTINGS_ADMIN, request)
                        latencies[name].append((time.perf_counter() - started) * 1000)
                        ranked = [await _dia_ids(runtime, hit.id, cache) for hit in result.hits]
                    if not question.scorable:
                        continue
                    scores = {k: recall_at_k(ranked, question.evidence, k) for k in ks}
                    for category in (question.category, "overall"):
                        per_k = recalls[name].setdefault(category, {k: [] for k in ks})
                        for k in ks:
                            per_k[k].append(scores[k])
                    if rows is not None:
                        row = {
                            "data": data.name,
                            "config": name,
                            "sample_id": conversation.sample_id,
                            "question": question.question,
                            "category": question.category,
                            "evidence": list(question.evidence),
                            "retrieved": ranked,
                            "recall": scores,
                        }
                        rows.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        await runtime.stop()
    return {
        name: {
            "recall": {
                category: {k: round(mean(values[k]), 3) for k in ks}
                for category, values in sorted(by_category.items())
            },
            "p95_ms": round(percentile(latencies[name], 0.95), 1),
        }
        for name, by_category in recalls.items()
        if by_category
    }


def table(data: Path, report: dict[str, Any], ks: Sequence[int]) -> str:
    """One row per configuration: recall@k overall and per category."""
    categories = sorted({c for entry in report.values() for c in entry["recall"]} - {"overall"})
    columns = ["overall", *categories]
    head = f"{data.name:24} " + " ".join(f"{c[:11]:>11}" for c in columns) + "   p95"
    lines = [head, f"{'':24} " + " ".join(f"{'@' + '/'.join(map(str, ks)):>11}" for _ in columns)]
    for name, entry in report.items():
        cells = []
        for c in columns:
            values = entry["recall"].get(c, {})
            cells.append(f"{'/'.join(f'{values.get(k, 0.0):.3f}' for k in ks):>11}")
        lines.append(f"{name:24} " + " ".join(cells) + f" {entry['p95_ms']:5.1f}")
    return "\n".join(lines)


def main() -> int:
    """Print the ablation table for each file; JSON of everything on --json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", default=[LOCOMO, REALTALK])
    parser.add_argument("--granularity", default="memory", choices=GRANULARITIES)
    parser.add_argument("--k", default="5,10")
    parser.add_argument("--configs", default="full,-context,-time,-entities,-all")
    parser.add_argument("--rows", type=Path, help="write one JSON line per question and config")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ks = [int(k) for k in args.k.split(",")]
    configs = args.configs.split(",")
    for name in configs:
        configuration(name)  # unknown names fail before anything loads
    rows = args.rows.open("w", encoding="utf-8") if args.rows else None
    everything: dict[str, Any] = {"machine": machine(), "granularity": args.granularity}
    try:
        for data in args.data:
            report = asyncio.run(run_file(data, args.granularity, configs, ks, rows))
            everything[data.name] = report
            if not args.json:
                print(table(data, report, ks), flush=True)
    finally:
        if rows is not None:
            rows.close()
    if args.json:
        json.dump(everything, sys.stdout, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
