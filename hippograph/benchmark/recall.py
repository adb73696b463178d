"""Retrieval recall as LoCoMo's official evaluation computes it."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def recall_at_k(ranked: Sequence[Sequence[str]], evidence: Sequence[str], k: int) -> float:
    """The share of ``evidence`` among the first ``k`` distinct turns retrieved.

    ``ranked`` holds, per hit in rank order, the turns the hit stands for; a
    hit standing for several turns spends several of the ``k`` slots. A
    question without evidence counts as fully recalled (the official rule;
    the caller leaves out questions whose evidence names no turn at all).
    """
    if not evidence:
        return 1.0
    seen: list[str] = []
    for turns in ranked:
        for turn in turns:
            if turn not in seen:
                seen.append(turn)
            if len(seen) >= k:
                break
        if len(seen) >= k:
            break
    wanted = set(evidence)
    return len(wanted & set(seen)) / len(wanted)


def mean(values: Sequence[float]) -> float:
    """The mean, 0 for nothing."""
    return statistics.fmean(values) if values else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``; 0 for nothing."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]
