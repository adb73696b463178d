"""Saying it again is not a new memory: a speaker's near-repeat joins what they said before.

People repeat themselves ("Thanks, Melanie! It means a lot…", the art show
announced in July and again in August). A memory in a speaker's own words
(an event, or an offline fact: :func:`hippograph.extraction.assemble.is_quote`)
whose turn sits at or above the model's restatement cosine to an earlier
turn of the same speaker, for the same user, in the same memorize call,
takes that earlier memory's id: the write then links the new message as one
more of its sources (note 004's BOOST/link, not ADD) and adds nothing. The
first wording stands. Word-for-word repeats in later calls meet the same
way, by their derived id; a near-repeat in a later call is a new memory.

Turn vectors (``<speaker> said, "<text>"``, before any blending with the
turn before) are what is compared: the same words in another context are
still the same words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from hippograph.extraction.assemble import MemoryDraft, UnitDraft, is_quote


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
    earlier = kept.setdefault((draft.memory.user_id, speaker), _Said())
    # The parts of one long message are that message, not repeats of it.
    others = [i for i, message in enumerate(earlier.messages) if message != said[0]]
    if others:
        cosines = np.stack([earlier.vectors[i] for i in others]) @ own
        best = int(cosines.argmax())
        if cosines[best] >= threshold:
            return replace(draft, memory=replace(draft.memory, id=earlier.ids[others[best]]))
    earlier.ids.append(draft.memory.id)
    earlier.messages.append(said[0])
    earlier.vectors.append(own)
    return draft


@dataclass
class _Said:
    """What one speaker said to one user so far in the call: memory ids, messages, vectors."""

    ids: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
