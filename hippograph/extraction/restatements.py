"""Saying it again is not a new memory: a speaker's near-repeat joins what they said before.

People repeat themselves ("Thanks, Melanie! It means a lot…", the art show
announced in July and again in August). A memory in a speaker's own words
(an event, or an offline fact: :func:`hippograph.extraction.assemble.is_quote`)
whose turn sits at or above the model's restatement cosine to an earlier
turn of the same speaker, for the same user, in the same memorize call,
takes that earlier memory's id: the write then links the new message as one
more of its sources (note 004's BOOST/link, not ADD) and adds nothing. The
first wording stands. Word-for-word repeats in later calls meet the same
way, by their derived id; a near-repeat in a later call is found in the
graph (:mod:`hippograph.services.said_before`) and renamed by
:func:`renamed` the same way.

Turn vectors (``<speaker> said, "<text>"``, before any blending with the
turn before) are what is compared: the same words in another context are
still the same words. A cosine alone is not enough, though: a pep talk with
one new fact in it ("I'm always here for you, Mel! We had a blast last year
at the Pride fest.") sat at 0.96 to the pep talk before it, and folding it
lost the fact to search. So a repeat must also say mostly what was said
before: at least half of its search words (:func:`hippograph.text.tokenize`:
stemmed, stop words out) were in the earlier turn (:func:`says_again`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from hippograph.extraction.assemble import MemoryDraft, UnitDraft, is_quote, quoted_words
from hippograph.text import tokenize

# The share of a repeat's words that the earlier turn must hold (see above).
_WORDS_SAID_BEFORE = 0.5


def says_again(words: str, earlier: str) -> bool:
    """Whether ``words`` say mostly what ``earlier`` said: half their search words
    or more are among its (words without any, a greeting, say: the cosine decides)."""
    own = set(tokenize(words))
    if not own:
        return True
    return len(own & set(tokenize(earlier))) >= _WORDS_SAID_BEFORE * len(own)


def fold_restatements(
    drafts: Sequence[UnitDraft],
    turns: Mapping[str, tuple[str, Sequence[float]]],
    threshold: float,
) -> list[UnitDraft]:
    """``drafts`` with every near-repeat renamed to the memory it repeats.

    ``turns``: per message id, its speaker and turn vector (the call's
    messages; a memory whose message is not among them is left alone).
    """
    kept: dict[tuple[str, str], _Said] = {}
    folded: list[UnitDraft] = []
    for unit in drafts:
        memories: list[MemoryDraft] = []
        for draft in unit.memories:
            memories.append(_fold(draft, turns, threshold, kept))
        folded.append(replace(unit, memories=tuple(memories)))
    return folded


def _fold(
    draft: MemoryDraft,
    turns: Mapping[str, tuple[str, Sequence[float]]],
    threshold: float,
    kept: dict[tuple[str, str], _Said],
) -> MemoryDraft:
    said = draft.sources.message_ids
    if not said or said[0] not in turns or not is_quote(draft.memory.content):
        return draft
    speaker, vector = turns[said[0]]
    own = np.asarray(vector, dtype=np.float32)
    own /= max(float(np.linalg.norm(own)), 1e-12)
    words = quoted_words(draft.memory.content)
    earlier = kept.setdefault((draft.memory.user_id, speaker), _Said())
    # The parts of one long message are that message, not repeats of it.
    others = [i for i, message in enumerate(earlier.messages) if message != said[0]]
    if others:
        cosines = np.stack([earlier.vectors[i] for i in others]) @ own
        for at in np.argsort(-cosines, kind="stable"):
            if cosines[at] < threshold:
                break
            i = others[int(at)]
            if says_again(words, earlier.words[i]):
                return replace(draft, memory=replace(draft.memory, id=earlier.ids[i]))
    earlier.ids.append(draft.memory.id)
    earlier.messages.append(said[0])
    earlier.vectors.append(own)
    earlier.words.append(words)
    return draft


@dataclass
class _Said:
    """What one speaker said to one user so far in the call: memory ids, messages,
    vectors, words."""

    ids: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    words: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Said:
    """A memory a call would add in a speaker's words: whose, by whom, what, its turn vector."""

    memory_id: str
    user_id: str
    speaker: str
    words: str
    vector: Sequence[float]


def said_anew(
    drafts: Sequence[UnitDraft], turns: Mapping[str, tuple[str, Sequence[float]]]
) -> list[Said]:
    """Each distinct memory of ``drafts`` in a speaker's words, by its first message."""
    seen: set[str] = set()
    said: list[Said] = []
    for unit in drafts:
        for draft in unit.memories:
            first = draft.sources.message_ids[:1]
            memory = draft.memory
            if memory.id in seen or not first or first[0] not in turns:
                continue
            if not is_quote(memory.content):
                continue
            seen.add(memory.id)
            speaker, vector = turns[first[0]]
            words = quoted_words(memory.content)
            said.append(Said(memory.id, memory.user_id, speaker, words, vector))
    return said


def renamed(drafts: Sequence[UnitDraft], ids: Mapping[str, str]) -> list[UnitDraft]:
    """``drafts`` with each memory whose id ``ids`` maps renamed to the memory it repeats."""
    if not ids:
        return list(drafts)
    return [
        replace(
            unit,
            memories=tuple(
                replace(d, memory=replace(d.memory, id=ids[d.memory.id]))
                if d.memory.id in ids
                else d
                for d in unit.memories
            ),
        )
        for unit in drafts
    ]
