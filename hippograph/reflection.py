"""Reflection (note 001, stage four): when enough has been learnt, summarise it.

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

from hippograph.extraction.assemble import quote_speaker, unquoted
from hippograph.extraction.keywords import keywords
from hippograph.ids import IdKind, derived_id
from hippograph.ports import Usage

REFLECTION_IMPORTANCE = 0.9


@dataclass(frozen=True, slots=True)
class ReflectionRules:
    """When to reflect and how to group (docs/design.md §6)."""

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
    kind: str = "semantic"
    topic: str | None = None  # a reflection's theme

    def told_of(self, user_name: str) -> str:
        """What a summary of ``user_name`` says of it: a reflection by its theme (its
        own facts are summarised already; quoting it whole nested "What Ann has
        shared about … : What Ann has shared about …"), a fact in the user's own
        dated words as those words and the date, another speaker's as what they
        said (never as the user's), anything else as it reads."""
        if self.kind == "reflection" and self.topic:
            return self.topic
        told = unquoted(self.content)
        speaker = quote_speaker(self.content)
        if speaker is None or speaker.lower() in {user_name.lower(), *user_name.lower().split()}:
            return told
        return f"{speaker} said: {told}"


class ReflectionRequest(BaseModel):
    """What a summariser is asked: one theme's facts about one user."""

    user_name: str
    facts: list[str] = Field(min_length=1)
    language: str = "en"


SUMMARY_LIMIT = 4000  # characters in a reflection
TOPIC_LIMIT = 64  # characters of a topic a reflection keeps


class ReflectionSummary(BaseModel):
    """A summariser's answer: the reflection's text and its topic."""

    content: str = Field(min_length=1, max_length=SUMMARY_LIMIT)
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
    (cosine), else start a group; a full group takes no more. Earlier
    reflections come after the facts: a summary's vector sits between its
    theme's facts, so it joins the theme they form, where as a seed it could
    leave them apart and wait alone (its hash id made that a matter of
    chance). Vectorised, as a user may have tens of thousands of pending facts.
    """
    ordered = sorted(facts, key=lambda f: (f.kind == "reflection", -f.importance, f.id))
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


def one_per_theme(
    groups: Sequence[Sequence[PendingFact]],
    topics: Sequence[str],
    pending: Sequence[PendingFact],
    most: int,
) -> list[tuple[list[PendingFact], bool]]:
    """The groups with one theme each: ``(facts, changed)``, best facts first.

    Groups whose summaries came out with the same theme are one group, and
    a pending reflection (one of ``pending``, in no group) on a theme a
    group has joins it, so a user never holds two current reflections on one
    theme, unless one group would then hold more than ``most`` facts (the
    bound ``themes`` cut them to). ``changed`` groups are to be summarised
    again. A group without a theme is left alone.
    """
    grouped = {f.id for g in groups for f in g}
    earlier: dict[str, list[PendingFact]] = {}
    for fact in pending:
        if fact.kind == "reflection" and fact.topic and fact.id not in grouped:
            earlier.setdefault(_theme_key(fact.topic), []).append(fact)
    merged: dict[str, tuple[list[PendingFact], bool]] = {}
    out: list[tuple[list[PendingFact], bool]] = []
    for group, topic in zip(groups, topics, strict=True):
        key = _theme_key(topic)
        if not key:
            out.append((list(group), False))
            continue
        if key in merged and len(merged[key][0]) + len(group) <= most:
            facts, _ = merged[key]
            facts.extend(group)
            merged[key] = (facts, True)
            continue
        if key in merged:
            out.append((list(group), False))
            continue
        joined = earlier.pop(key, [])
        merged[key] = ([*group, *joined], bool(joined))
    out.extend(merged.values())
    return [(sorted(g, key=lambda f: (-f.importance, f.id)), changed) for g, changed in out]


def _theme_key(topic: str) -> str:
    # As a reflection keeps it: a longer topic is one with the kept one.
    return " ".join(topic[:TOPIC_LIMIT].lower().split())


def reflection_id(user_id: str, fact_ids: Sequence[str]) -> str:
    """The id of the reflection over exactly these facts."""
    return derived_id(IdKind.MEMORY, "reflection", user_id, *sorted(fact_ids))


# Words that are in many themes and name none ("one, favorite, love"), and the
# months of the dates a fact in its speaker's words carries.
_GENERIC = """
one two three first last new old good great nice fun lot lots really much many thing things
stuff way time times day days today yesterday tomorrow week weeks month months year years
night morning weekend love loved loves like liked likes favorite favourite favorites
favourites want wanted enjoy enjoyed feel felt think thought know got get make made going
go went come came see saw look looking said say tell told also still just always never ever
sure kind sort bit little big best better well people person someone everyone everything
something anything yes yeah okay ok hey thanks thank awesome amazing cool wow glad happy
january february march april may june july august september october november december
"""
GENERIC_THEME_WORDS = frozenset(_GENERIC.split())


def theme_of(facts: Sequence[str], user_name: str, most: int = 2) -> str:
    """What a person would call these facts' theme: up to ``most`` telling phrases.

    The user's own name is in every fact, and generic words ("one",
    "favorite", "love") are in every theme: neither names one.
    """
    names = set(user_name.lower().split())
    found = [
        k
        for k in keywords(facts, limit=12)
        if not names & set(k.split()) and not set(k.split()) <= GENERIC_THEME_WORDS
    ]
    # Only as many phrases as a reflection's topic keeps: a phrase with a
    # long token (a link) alone is cut to it.
    theme = found[0][:TOPIC_LIMIT] if found else ""
    for phrase in found[1:most]:
        longer = f"{theme} and {phrase}"
        if len(longer) > TOPIC_LIMIT:
            break
        theme = longer
    return theme


def offline_summary(request: ReflectionRequest, limit: int = 6) -> ReflectionSummary:
    """An extractive reflection: the theme, then its facts, most important first.

    At most ``limit`` facts, and no more than fit in a reflection (a fact in
    its speaker's words is a whole message): the rest are counted.
    """
    topic = theme_of(request.facts, request.user_name)
    opening = f"What {request.user_name} has shared about {topic}" if topic else "A summary"
    room = SUMMARY_LIMIT - len(opening) - len(" (and 9999 more).") - 2
    told: list[str] = []
    used = 0  # characters the facts told so far take, with their "; "
    for fact in request.facts[:limit]:
        line = fact.rstrip(". ")
        if told and used + len(line) > room:
            break
        told.append(line if len(line) <= room else line[: room - 1].rstrip() + "…")
        used += len(told[-1]) + 2
    more = len(request.facts) - len(told)
    tail = f" (and {more} more)" if more > 0 else ""
    return ReflectionSummary(content=f"{opening}: {'; '.join(told)}{tail}.", topic=topic)
