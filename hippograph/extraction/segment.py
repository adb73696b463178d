"""Cutting a run of messages into MemUnits: on time gaps, topic shifts, and a size cap."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from hippograph.vector_math import cosine, mean


@dataclass(frozen=True, slots=True)
class SegmentRules:
    """When a new MemUnit starts."""

    max_gap: timedelta = timedelta(minutes=30)
    # cosine of a message to its recent context below which the topic changed
    shift_threshold: float = 0.2
    context: int = 3
    min_size: int = 3
    max_size: int = 12


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
            shift = cosine(vectors[i], mean(recent)) < rules.shift_threshold
        if gap or full or shift:
            units.append(range(start, i))
            start = i
    if times:
        units.append(range(start, len(times)))
    return units
