"""Each catalog model's cut points: MiniLM's thresholds carried to it at the same quantile.

Memorize starts a new MemUnit where a turn's cosine to the turns before it
falls below ``topic_shift`` (0.2 for MiniLM); reflection joins a fact to a
theme from ``theme`` (0.45). A cosine means something else in every model
(unrelated turns: MiniLM about 0.3, e5-small about 0.8), so each model's
value is the cosine at the quantile where MiniLM's threshold falls, among
the cosines between pairs of texts: dev turns as memorize embeds them
(``<speaker> said, "<text>"``) for the topic shift, and for the theme the
statements about a person that LoCoMo's dev file lists per session
(``observation``), the kind of text reflection groups; the restatement
(0.90 for MiniLM: one speaker saying the same again) between turns too.
Chinese models are measured on the Chinese turns of
``tests/data/chinese_pairs.json`` (the dev files have none), as written and
bare, at the quantiles MiniLM gives on the English texts. On the statements,
the quantile's threshold is also the one whose pairs agree best with
MiniLM's (e5 0.824, F1 0.74; bge 0.64, F1 0.82).

python -m bench.experiments.calibrate [--pairs 800]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path

import numpy as np

from bench.common import LOCOMO, REALTALK, ROOT, dev_file
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.adapters.model_catalog import CATALOG
from hippograph.settings import EmbeddingSettings

CHINESE = ROOT / "tests" / "data" / "chinese_pairs.json"
MINILM = {"topic_shift": 0.2, "theme": 0.45, "restatement": 0.9}


def english(texts: int) -> tuple[list[str], list[str]]:
    """A fixed random sample of the dev turns as memorize embeds them; LoCoMo's statements."""
    turns: list[tuple[str, str]] = []
    for path in (LOCOMO, REALTALK):
        for sample in json.loads(dev_file(path).read_text()):
            for key, value in sample["conversation"].items():
                if key.startswith("session_") and isinstance(value, list):
                    turns += [(t["speaker"], t["text"]) for t in value]
    chosen = np.random.default_rng(1).choice(len(turns), texts, replace=False)
    statements = [
        item[0]
        for sample in json.loads(dev_file(LOCOMO).read_text())
        for session in sample["observation"].values()
        for items in session.values()
        for item in items
    ]
    return [f'{turns[i][0]} said, "{turns[i][1]}"' for i in chosen], statements


def chinese(path: Path) -> tuple[list[str], list[str]]:
    """The Chinese fixture's turns, as written and bare."""
    data = json.loads(path.read_text())
    said = [p["turn"] for p in data["pairs"]] + data["others"]
    return said, [re.sub(r"^.*?说：“(.*)”$", r"\1", t) for t in said]


async def cosines(model: str, texts: list[str]) -> np.ndarray:
    """Every pair's cosine, sorted, with the model's passage prefix."""
    embedder = await SentenceTransformerEmbedder.load(EmbeddingSettings(model=model))
    try:
        vectors = np.array(await embedder.embed(texts))
    finally:
        await embedder.close()
    upper = np.triu_indices(len(texts), 1)
    return np.sort((vectors @ vectors.T)[upper])


async def calibrate(texts: int) -> dict[str, dict[str, float]]:
    """Every model's topic shift, theme and restatement thresholds."""
    sets = {"en": english(texts), "zh": chinese(CHINESE)}
    base = [await cosines("all-minilm-l6-v2", sets["en"][i]) for i in (0, 1)]
    # The topic shift and the restatement are cut between turns, the theme
    # between statements.
    on = {"topic_shift": 0, "theme": 1, "restatement": 0}
    quantiles = {
        name: float(np.searchsorted(base[on[name]], MINILM[name]) / len(base[on[name]]))
        for name in MINILM
    }
    out: dict[str, dict[str, float]] = {"quantiles": quantiles}
    for model in CATALOG:
        said, bare = sets[model.language]
        values = {}
        found = {"said": await cosines(model.name, said), "bare": await cosines(model.name, bare)}
        for name, texts_ in (("topic_shift", "said"), ("theme", "bare"), ("restatement", "said")):
            values[name] = round(float(np.quantile(found[texts_], quantiles[name])), 3)
        out[model.name] = values
    return out


def main() -> int:
    """Print every model's values beside what the catalog declares."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=800, help="English turns sampled")
    args = parser.parse_args()
    found = asyncio.run(calibrate(args.pairs))
    declared = {
        m.name: {
            "topic_shift": m.scale.topic_shift,
            "theme": m.scale.theme,
            "restatement": m.scale.restatement,
        }
        for m in CATALOG
    }
    print(json.dumps({"measured": found, "declared": declared}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
