"""Callers that share the embedder's batch do not share each other's failures."""

from __future__ import annotations

import asyncio
import math

import pytest

from hippograph.adapters.embedder import SentenceTransformerEmbedder

pytestmark = pytest.mark.slow  # a model of its own, loaded and poisoned (15 s here)


def _close(a: list[float], b: list[float]) -> bool:
    return math.fsum(x * y for x, y in zip(a, b, strict=True)) > 0.9999


async def test_a_poisoned_caller_fails_alone_and_every_other_caller_gets_its_vectors(
    embedder: SentenceTransformerEmbedder,
) -> None:
    texts = [[f"caller {i} likes hiking in the alps", f"and tea number {i}"] for i in range(12)]
    poisoned = ["a lone surrogate \ud800 is not text"]
    with pytest.raises(Exception):  # noqa: B017,PT011 (the tokenizer's own error type)
        embedder.encode(poisoned)
    # All thirteen are queued before the drainer runs, so they share one batch.
    calls = [embedder.embed(t) for t in texts[:6]] + [embedder.embed(poisoned)]
    calls += [embedder.embed(t) for t in texts[6:]]
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert isinstance(results[6], Exception)
    answers = results[:6] + results[7:]
    assert not [r for r in answers if isinstance(r, BaseException)]
    for caller_texts, vectors in zip(texts, answers, strict=True):
        assert isinstance(vectors, list)
        alone = await embedder.embed(caller_texts)
        assert all(_close(a, b) for a, b in zip(vectors, alone, strict=True))
    # And the embedder still serves afterwards.
    assert len(await embedder.embed(["still working"])) == 1
