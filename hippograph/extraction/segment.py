"""Cutting a run of messages into MemUnits: on time gaps, topic shifts, and a size cap."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True, slots=True)
class SegmentRules:
    """When a new MemUnit starts."""

    max_gap: timedelta = timedelta(minutes=30)
    # cosine of a message to its recent context below which the topic changed
    shift_threshold: float = 0.2
    context: int = 3
    min_size: int = 3
    max_size: int = 12


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _mean(vectors: Sequence[Sequence[float]]) -> list[float]:
    return [sum(column) / len(vectors) for column in zip(*vectors, strict=True)]


def segment(
    times: Sequence[datetime], vectors: Sequence[Sequence[float]], rules: SegmentRules
) -> list[range]:
    """Index ranges of consecutive messages forming MemUnits, in order.

    A unit ends before a message that comes more than ``max_gap`` after the
    previous one, or when the unit is full, or — once it has ``min_size``
    messages — before a message whose cosine to the mean of the last
    ``context`` messages falls below ``shift_threshold``.
    """
    if len(times) != len(vectors):
        raise ValueError("one vector per message")
    units: list[range] = []
    start = 0
    for i in range(1, len(times)):
        size = i - start
        gap = times[i] - times[i - 1] > rules.max_gap
        full = size >= rules.max_size
        shift = False
        if size >= rules.min_size:
            recent = vectors[max(start, i - rules.context) : i]
            shift = _cosine(vectors[i], _mean(recent)) < rules.shift_threshold
        if gap or full or shift:
            units.append(range(start, i))
            start = i
    if times:
        units.append(range(start, len(times)))
    return units
