"""What a speaker said to a user in an earlier memorize call, found by a turn's vector.

Within one call :func:`hippograph.extraction.restatements.fold_restatements`
folds a speaker's near-repeats together. A chat memorized day by day says
"Thanks, Melanie! It means a lot…" again in a later call, so each memory in a
speaker's words that a call would add first asks the graph for the user's
nearest memories: one of the same speaker's words, still at level full,
written by memorize, at or above the restatement cosine and saying mostly
the same words (:func:`hippograph.extraction.restatements.says_again`), is
what was said before, and the new message becomes one more of its sources.

Those memories' vectors are their turn vectors (``hippograph.reembedding``,
recipe TURN), the scale the restatement cut is set on. With
``HIPPOGRAPH_MEMORIZE__TURN_CONTEXT_WEIGHT`` above 0 they are blended with the
turn before, so a repeat in another context lies a little further away and
folds a little less often; nothing is folded that would not be at weight 0
and a higher cut.

The lookup keeps to the search's rule for the vector side: a user with at
most ``exact_scan_max`` memories is compared exactly, their vectors read
once for the whole call (``memory_vectors``) and the cosines taken here; a
larger user goes through the vector index, oversampled for their share, one
query per turn (:func:`hippograph.services.search_pipeline.plan.plan_search`,
:func:`hippograph.services.search_pipeline.vector.fetch`). What it costs memorize is
in docs/memorize.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from hippograph.clock import Clock
from hippograph.extraction.assemble import UnitDraft, quote_speaker, quoted_words
from hippograph.extraction.restatements import (
    Said,
    fold_restatements,
    renamed,
    said_anew,
    says_again,
)
from hippograph.models import Memory, MemoryFilter, MemoryKind, MemoryLevel, MemorySource
from hippograph.modes import SearchMode
from hippograph.scoring import SearchMethod
from hippograph.services.counts import CachedCounts
from hippograph.services.memory_store import MemoryStore
from hippograph.services.search_pipeline import vector
from hippograph.services.search_pipeline.plan import Counts, plan_search
from hippograph.services.search_store import SearchStore
from hippograph.settings import SearchSettings
from hippograph.vector_math import unit_rows

# Neighbours looked at: the best one decides; a few more let a hit of
# another speaker or kind pass without hiding the one that counts.
_LOOKED_AT = 5
_QUOTED = MemoryFilter(kinds=(MemoryKind.EVENT, MemoryKind.SEMANTIC), levels=(MemoryLevel.FULL,))


async def fold_repeats(
    drafts: Sequence[UnitDraft],
    turns: Mapping[str, tuple[str, Sequence[float]]],
    threshold: float,
    earlier: SaidBefore | None,
) -> list[UnitDraft]:
    """``drafts`` with each near-repeat of a speaker renamed to what they said before:
    in this call (``turns``: per message id, its speaker and turn vector), then,
    given ``earlier``, in an earlier one."""
    folded = fold_restatements(drafts, turns, threshold)
    return folded if earlier is None else await earlier.fold(folded, turns, threshold)


@dataclass(eq=False)
class SaidBefore:
    """Finds the memories a call's turns repeat among what their users already hold."""

    _store: SearchStore
    _memories: MemoryStore
    _clock: Clock
    _settings: SearchSettings
    _counts: CachedCounts = field(init=False)

    def __post_init__(self) -> None:
        self._counts = CachedCounts(self._memories.count, self._settings.count_cache_ttl_s)

    async def fold(
        self,
        drafts: Sequence[UnitDraft],
        turns: Mapping[str, tuple[str, Sequence[float]]],
        threshold: float,
    ) -> list[UnitDraft]:
        """``drafts`` with each memory that repeats one of an earlier call renamed to it
        (``turns``: per message id of the call, its speaker and turn vector)."""
        return renamed(drafts, await self.earlier(said_anew(drafts, turns), threshold))

    async def earlier(self, said: Sequence[Said], threshold: float) -> dict[str, str]:
        """Per memory id of ``said``, the id of the memory it repeats (its speaker's,
        for its user, at cosine ≥ ``threshold`` and saying mostly the same words)."""
        by_user: dict[str, list[Said]] = {}
        for one in said:
            by_user.setdefault(one.user_id, []).append(one)
        near: list[tuple[Said, list[tuple[str, float]]]] = []
        for user_id, theirs in by_user.items():
            near.extend(zip(theirs, await self._nearest(user_id, theirs, threshold), strict=True))
        wanted = list(dict.fromkeys(i for _, hits in near for i, _ in hits))
        found: dict[str, Memory] = await self._memories.get_memories(wanted) if wanted else {}
        ids: dict[str, str] = {}
        for one, hits in near:
            for memory_id, _ in hits:  # most similar first
                memory = found.get(memory_id)
                if memory is None or not _repeats(one, memory):
                    continue
                # Its own id: the same words, which the write links by that id anyway.
                if memory.id != one.memory_id:
                    ids[one.memory_id] = memory.id
                break
        return ids

    async def _nearest(
        self, user_id: str, said: Sequence[Said], threshold: float
    ) -> list[list[tuple[str, float]]]:
        # The user's own count fresh (one small read a call, never a stale
        # "none yet" that would skip a repeat); everyone's may be a little old.
        owned = await self._memories.count(user_id)
        if owned == 0:
            return [[] for _ in said]
        now = self._clock()
        if owned <= self._settings.exact_scan_max:  # one read for the whole call
            stored = await self._store.memory_vectors(user_id, _QUOTED, now)
            return _closest([s.vector for s in said], stored, threshold)
        plan = plan_search(
            user_id=user_id,
            units=False,
            method=SearchMethod.VECTOR,
            mode=SearchMode.NORMAL,
            terms=(),
            memory_filter=_QUOTED,
            now=now,
            top_k=_LOOKED_AT,
            candidates=_LOOKED_AT,
            radius=threshold,
            counts=Counts(owned=owned, total=await self._counts.get(None)),
            index_scoped=self._store.scoped_vector_index(),
            settings=self._settings,
        )
        return [
            [(h.id, h.similarity or 0.0) for h in await vector.fetch(self._store, plan, s.vector)]
            for s in said
        ]


def _closest(
    vectors: Sequence[Sequence[float]],
    stored: Sequence[tuple[str, Sequence[float]]],
    threshold: float,
) -> list[list[tuple[str, float]]]:
    """For each of ``vectors``, up to ``_LOOKED_AT`` of ``stored`` at cosine ≥
    ``threshold``, most similar first."""
    if not stored or not vectors:
        return [[] for _ in vectors]
    ids = [i for i, _ in stored]
    cosines = unit_rows(vectors) @ unit_rows([v for _, v in stored]).T
    found: list[list[tuple[str, float]]] = []
    for row in cosines:
        near = np.flatnonzero(row >= threshold)  # few, mostly none
        best = near[np.argsort(-row[near], kind="stable")][:_LOOKED_AT]
        found.append([(ids[b], float(row[b])) for b in best])
    return found


def _repeats(said: Said, memory: Memory) -> bool:
    """Whether ``memory`` is what ``said`` says again: in the same speaker's words, as
    memorize wrote them, and mostly the same words."""
    return (
        memory.source == MemorySource.EXTRACTION
        and quote_speaker(memory.content) == said.speaker[:200]
        and says_again(said.words, quoted_words(memory.content))
    )
