"""bfloat16 and float32 encodings of the same texts agree, and both are float32 unit vectors."""

from __future__ import annotations

import math

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.settings import EmbeddingSettings

TEXTS = [
    'Caroline said, "I went to the LGBTQ support group yesterday and it was so powerful."',
    "Melanie painted a sunrise over the lake last year.",
    "我喜欢喝咖啡",
    "ok",
]


async def test_bfloat16_vectors_match_float32_ones() -> None:
    vectors = {}
    for precision in ("float32", "bfloat16"):
        embedder = await SentenceTransformerEmbedder.load(EmbeddingSettings(precision=precision))
        try:
            assert embedder.precision == precision
            vectors[precision] = await embedder.embed(TEXTS)
        finally:
            await embedder.close()
    for full, half in zip(vectors["float32"], vectors["bfloat16"], strict=True):
        assert len(half) == 384
        assert all(isinstance(x, float) for x in half)
        assert math.isclose(math.fsum(x * x for x in half), 1.0, abs_tol=1e-5)
        # Measured at least 0.9999 on the LoCoMo turns; a model run in a
        # broken precision lands far below.
        assert math.fsum(a * b for a, b in zip(full, half, strict=True)) > 0.999
