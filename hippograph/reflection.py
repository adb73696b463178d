"""Reflection (seed 001, stage four): when enough has been learnt, summarise it.

Pure: when a user is due (the importance of their unconsolidated facts sums
to at least 4.0 over at least two facts, and the last reflection is an hour
old), how the facts are grouped by theme (clusters of their embeddings, so
one reflection covers one topic), and the id a reflection gets (derived from
the facts it covers, so the same job twice, or two workers at once, make one
reflection). The summary itself comes from the ``LLM`` port.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from pydantic import BaseModel, Field

from hippograph.extraction.keywords import keywords
from hippograph.ids import IdKind, derived_id
from hippograph.ports import Usage

REFLECTION_IMPORTANCE = 0.9


@dataclass(frozen=True, slots=True)
class ReflectionRules:
    """When to reflect and how to group (DESIGN.md §6)."""

    min_importance_sum: float = 4.0
    min_facts: int = 2
    cooldown: timedelta = timedelta(hours=1)
    # cosine of a fact to a cluster's centre above which it joins that theme
    cluster_threshold: float = 0.45
    max_facts_per_reflection: int = 40


@dataclass(frozen=True, slots=True)
class PendingFact:
    """An unconsolidated fact (or reflection) that a reflection may cover."""

    id: str
    content: str
    importance: float
    vector: Sequence[float]


class ReflectionRequest(BaseModel):
    """What a summariser is asked: one theme's facts about one user."""

    user_name: str
    facts: list[str] = Field(min_length=1)
    language: str = "en"


class ReflectionSummary(BaseModel):
    """A summariser's answer: the reflection's text and its topic."""

    content: str = Field(min_length=1, max_length=4000)
    topic: str = Field(default="", max_length=120)
    usage: Usage = Field(default_factory=Usage)


def is_due(
    facts: Sequence[PendingFact],
    last_reflection_at: datetime | None,
    now: datetime,
    rules: ReflectionRules,
    force: bool = False,
) -> bool:
    """Whether a user with these pending facts should reflect now (``force`` skips the cooldown)."""
    if len(facts) < rules.min_facts:
        return False
    if sum(f.importance for f in facts) < rules.min_importance_sum:
        return False
    cooled = last_reflection_at is None or now - last_reflection_at >= rules.cooldown
    return force or cooled


def themes(facts: Sequence[PendingFact], rules: ReflectionRules) -> list[list[PendingFact]]:
    """Facts grouped by theme; only groups a reflection should cover (≥ ``min_facts``).

    Greedy and deterministic: facts in order of importance (then id) join the
    closest group whose running centre is within ``cluster_threshold``
    (cosine), else start a group; a full group takes no more. Vectorised, as
    a user may have tens of thousands of pending facts.
    """
    ordered = sorted(facts, key=lambda f: (-f.importance, f.id))
    if not ordered:
        return []
    vectors = np.asarray([f.vector for f in ordered], dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    sums = np.zeros((len(ordered), vectors.shape[1]), dtype=np.float32)
    centres = np.zeros_like(sums)
    open_ = np.zeros(len(ordered), dtype=bool)
    groups: list[list[PendingFact]] = []
    for fact, vector in zip(ordered, vectors, strict=True):
        count = len(groups)
        best = -1
        if count:
            scores = centres[:count] @ vector
            scores[~open_[:count]] = -np.inf
            candidate = int(np.argmax(scores))
            if scores[candidate] >= rules.cluster_threshold:
                best = candidate
        if best < 0:
            best = count
            groups.append([])
            open_[best] = True
        groups[best].append(fact)
        sums[best] += vector
        centres[best] = sums[best] / max(float(np.linalg.norm(sums[best])), 1e-12)
        if len(groups[best]) >= rules.max_facts_per_reflection:
            open_[best] = False
    return [sorted(g, key=lambda f: f.id) for g in groups if len(g) >= rules.min_facts]


def reflection_id(user_id: str, fact_ids: Sequence[str]) -> str:
    """The id of the reflection over exactly these facts."""
    return derived_id(IdKind.MEMORY, "reflection", user_id, *sorted(fact_ids))


def offline_summary(request: ReflectionRequest, limit: int = 6) -> ReflectionSummary:
    """An extractive reflection: the theme's keywords, then its facts, most important first."""
    # The user's own name is in every fact and says nothing about the theme.
    names = set(request.user_name.lower().split())
    found = [k for k in keywords(request.facts, limit=8) if not names & set(k.split())]
    topic = ", ".join(found[:3])
    told = "; ".join(fact.rstrip(". ") for fact in request.facts[:limit])
    more = len(request.facts) - limit
    tail = f" (and {more} more)" if more > 0 else ""
    opening = f"What {request.user_name} has shared about {topic}" if topic else "A summary"
    return ReflectionSummary(content=f"{opening}: {told}{tail}.", topic=topic)
