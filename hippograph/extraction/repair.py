"""What a model's extraction keeps after its items are checked one by one.

A model's answer is valid JSON in the right shape and still wrong in places:
small local models (Qwen2.5 0.5B) cite no message for a profile value they
made up (``age: 25``, ``city: New York`` for a chat that names neither, or
the city of the prompt's own example), fill attributes with ``"None"``,
repeat one fact for every message, or file an item under a user id that is
not in the unit. Asking again at temperature 0 gives
the same answer, and one bad item should not cost the unit's good ones: each
bad item is dropped, the rest is kept, and what was dropped is said (logged
and counted on the job's usage notes by the caller).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypeVar

from hippograph.extraction.schema import (
    Episode,
    Extraction,
    ExtractionRequest,
    Fact,
    ProfileAttribute,
)

_Item = TypeVar("_Item", Episode, Fact, ProfileAttribute)

# Values a model writes when it has nothing to say (compared lower-cased).
_PLACEHOLDERS = frozenset(
    {"", "none", "null", "n/a", "na", "unknown", "not mentioned", "not stated", "-", "无", "未知"}
)
_WORD = re.compile(r"[0-9a-z]+|[\u4e00-\u9fff]")
# Words too common to show that a value was stated.
_COMMON = frozenset({"a", "an", "the", "of", "and", "in", "at", "to", "is", "my", "her", "his"})


@dataclass
class Repairs:
    """What was dropped from one extraction, each with its reason."""

    dropped: list[str] = field(default_factory=list)

    def drop(self, what: str, why: str) -> None:
        """Record one dropped item."""
        self.dropped.append(f"{what}: {why}")


def _ordered_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _COMMON]


def _words(text: str) -> set[str]:
    return set(_ordered_words(text))


def _citations(
    label: str, user_id: str, indices: list[int], request: ExtractionRequest, repairs: Repairs
) -> list[int] | None:
    """An item's messages of the unit, in order, once each; ``None`` (and the item
    dropped) when its user is not in the unit or it cites none of the unit's messages."""
    if user_id not in request.users:
        repairs.drop(label, f"unknown user id {user_id!r}")
        return None
    known = {m.index for m in request.messages}
    cited = list(dict.fromkeys(i for i in indices if i in known))
    if not cited:
        repairs.drop(label, f"cites no message of the unit ({indices})")
        return None
    return cited


def _fact(fact: Fact, request: ExtractionRequest, repairs: Repairs) -> Fact | None:
    label = f"fact {fact.content[:60]!r}"
    cited = _citations(label, fact.user_id, fact.message_indices, request, repairs)
    return None if cited is None else fact.model_copy(update={"message_indices": cited})


def _attribute(
    item: ProfileAttribute, request: ExtractionRequest, repairs: Repairs
) -> ProfileAttribute | None:
    label = f"profile {item.attribute}={item.value[:60]!r}"
    if item.value.strip().lower() in _PLACEHOLDERS:
        repairs.drop(label, "a placeholder, not a value")
        return None
    cited = _citations(label, item.user_id, item.message_indices, request, repairs)
    if cited is None:
        return None
    # A value the cited messages share no word with was not stated there.
    texts = {m.index: m.text for m in request.messages}
    stated = set().union(*(_words(texts[i]) for i in cited))
    if not _words(item.value) & stated:
        repairs.drop(label, f"not stated in messages {cited}")
        return None
    return item.model_copy(update={"message_indices": cited})


def _episodes(episodes: list[Episode], users: set[str], repairs: Repairs) -> list[Episode]:
    """One episode per user of the unit, the first (a user filed under both id and name
    has two)."""
    kept: dict[str, Episode] = {}
    for episode in episodes:
        label = f"episode {episode.title[:60]!r}"
        if episode.user_id not in users:
            repairs.drop(label, f"unknown user id {episode.user_id!r}")
        elif episode.user_id in kept:
            repairs.drop(label, f"a second episode of {episode.user_id!r}")
        else:
            kept[episode.user_id] = episode
    return list(kept.values())


def _merge_repeats(facts: list[Fact], repairs: Repairs) -> list[Fact]:
    """One fact per user and content; a repeat adds its messages to the first."""
    merged: dict[tuple[str, str], Fact] = {}
    for fact in facts:
        # The words in their order: "Ann lent Bob money" and "Bob lent Ann
        # money" share every word and are two facts.
        key = (fact.user_id, " ".join(_ordered_words(fact.content)))
        first = merged.get(key)
        if first is None:
            merged[key] = fact
            continue
        repairs.drop(f"fact {fact.content[:60]!r}", "repeats an earlier fact")
        indices = list(dict.fromkeys([*first.message_indices, *fact.message_indices]))
        importance = max(first.importance, fact.importance)
        merged[key] = first.model_copy(
            update={"message_indices": indices, "importance": importance}
        )
    return list(merged.values())


def _under_ids(extraction: Extraction, request: ExtractionRequest) -> Extraction:
    """``extraction`` with items filed under a user's name, or id in another case
    ("Ann" for ``ann``), under the id: a model that keys by speaker lost them all.
    A name two users share says neither."""
    known: dict[str, set[str]] = {}
    for user_id, name in request.users.items():
        for said in (user_id, name):
            known.setdefault(said.casefold(), set()).add(user_id)
    ids = {said: next(iter(found)) for said, found in known.items() if len(found) == 1}

    def filed(items: list[_Item]) -> list[_Item]:
        return [
            i.model_copy(update={"user_id": ids[i.user_id.casefold()]})
            if i.user_id not in request.users and i.user_id.casefold() in ids
            else i
            for i in items
        ]

    return extraction.model_copy(
        update={
            "episodes": filed(extraction.episodes),
            "facts": filed(extraction.facts),
            "profile": filed(extraction.profile),
        }
    )


def repaired(extraction: Extraction, request: ExtractionRequest) -> tuple[Extraction, Repairs]:
    """``extraction`` without its unusable items, and what was dropped."""
    extraction = _under_ids(extraction, request)
    repairs = Repairs()
    facts = [kept for fact in extraction.facts if (kept := _fact(fact, request, repairs))]
    profile = [
        stated for item in extraction.profile if (stated := _attribute(item, request, repairs))
    ]
    fixed = extraction.model_copy(
        update={
            "episodes": _episodes(extraction.episodes, set(request.users), repairs),
            "facts": _merge_repeats(facts, repairs),
            "profile": profile,
        }
    )
    return fixed, repairs
