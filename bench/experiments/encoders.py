"""The catalog's encoders side by side: speed, int8 against float32, and plain dense recall.

For every model and precision, on the dev files' turns (``<speaker> said,
"<text>"``, as memorize embeds them, with the model's passage prefix):

* texts/s through the embedder (what memorize and import pay; the ONNX
  session uses every core);
* the cosine of each int8 vector to its float32 twin (min and mean);
* dense recall@10: every turn ranked by cosine to the question (with the
  query prefix), no service, the baseline the vector side must beat.

python -m bench.experiments.encoders [--models all-minilm-l6-v2,e5-small-v2,...] [--limit 1200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import LOCOMO, REALTALK, dev_file, machine
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.adapters.model_catalog import CATALOG
from hippograph.benchmark.recall import recall_at_k
from hippograph.settings import EmbeddingSettings


def turns_and_questions(
    path: Path,
) -> list[tuple[list[tuple[str, str]], list[tuple[str, list[str]]]]]:
    """Per conversation: its turns (dia id, text as embedded) and scorable questions."""
    out = []
    for sample in json.loads(dev_file(path).read_text()):
        conversation = sample["conversation"]
        turns = []
        for key, value in conversation.items():
            if key.startswith("session_") and isinstance(value, list):
                for turn in value:
                    text = turn["text"]
                    if turn.get("blip_caption"):
                        text = f"{text} and shared {turn['blip_caption']}"
                    turns.append((turn["dia_id"], f'{turn["speaker"]} said, "{text}"'))
        questions = [(q["question"], q["evidence"]) for q in sample["qa"] if q.get("evidence")]
        out.append((turns, questions))
    return out


async def _load(model: str, precision: str) -> SentenceTransformerEmbedder:
    return await SentenceTransformerEmbedder.load(
        EmbeddingSettings(model=model, precision=precision)
    )


def _speed(embedder: SentenceTransformerEmbedder, texts: list[str]) -> float:
    started = time.perf_counter()
    embedder.encode(texts)
    return len(texts) / (time.perf_counter() - started)


async def measure(model: str, limit: int) -> dict[str, Any]:
    """Everything above for one model, both precisions."""
    files = {p.name: turns_and_questions(p) for p in (LOCOMO, REALTALK)}
    texts = [
        t for conv in files["locomo_dev.json"] + files["realtalk_dev.json"] for _, t in conv[0]
    ]
    report: dict[str, Any] = {}
    vectors: dict[str, Any] = {}
    for precision in ("float32", "int8"):
        embedder = await _load(model, precision)
        try:
            sample = [embedder_prefix(embedder) + t for t in texts[:limit]]
            entry: dict[str, Any] = {"texts_per_s": round(_speed(embedder, sample), 1)}
            vectors[precision] = np.array(await embedder.embed(texts))
            for name, conversations in files.items():
                scores = []
                for turns, questions in conversations:
                    passages = np.array(await embedder.embed([t for _, t in turns]))
                    asked = np.array(await embedder.embed_queries([q for q, _ in questions]))
                    for row, (_, evidence) in zip(asked @ passages.T, questions, strict=True):
                        ranked = [[turns[i][0]] for i in np.argsort(-row)[:10]]
                        scores.append(recall_at_k(ranked, evidence, 10))
                entry[f"dense_r10_{name}"] = round(float(np.mean(scores)), 3)
            report[precision] = entry
        finally:
            await embedder.close()
    cosines = (vectors["float32"] * vectors["int8"]).sum(axis=1)
    report["int8_vs_float32"] = {
        "min": round(float(cosines.min()), 4),
        "mean": round(float(cosines.mean()), 4),
        "texts": len(texts),
    }
    return report


def embedder_prefix(embedder: SentenceTransformerEmbedder) -> str:
    """The passage prefix the embedder adds (timed with it, as memorize pays it)."""
    model = next((m for m in CATALOG if m.name == embedder.model_name), None)
    return model.passage_prefix if model is not None else ""


def main() -> int:
    """Print one JSON object: the machine and every model's figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    english = ",".join(m.name for m in CATALOG if m.language == "en")
    parser.add_argument("--models", default=english)
    parser.add_argument("--limit", type=int, default=1200, help="turns timed per model")
    args = parser.parse_args()
    everything: dict[str, Any] = {"machine": machine()}
    for model in args.models.split(","):
        everything[model] = asyncio.run(measure(model, args.limit))
        print(json.dumps({model: everything[model]}), flush=True)
    print(json.dumps(everything, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
