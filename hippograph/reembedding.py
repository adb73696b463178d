"""What each stored vector is made of, so that another model can make it again.

``hippograph reindex --model`` must leave the graph as memorize with that
model would have made it, so each vector is rebuilt from what it was made
of, not always from the memory's text:

* a MemUnit: the centroid of its messages' turn vectors;
* an event memorize wrote (and a turn memory, and a fact in its speaker's
  dated words, as the offline extractor writes them), still at level full: its
  message's turn vector, blended with the turn before it when
  ``HIPPOGRAPH_MEMORIZE__TURN_CONTEXT_WEIGHT`` is set;
* anything else (episodes, facts, profile attributes, reflections, memories
  written through the API, any memory fuzzed to a fainter level): its content.

A turn is ``<speaker> said, "<text>"`` (:func:`hippograph.turns.turn_content`),
embedded as a passage. An event with several source messages takes the
earliest, as memorize takes the first it was given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from hippograph.extraction.assemble import centroid, is_quote
from hippograph.models import MemoryKind, MemoryLevel, MemorySource
from hippograph.turns import blend


@dataclass(frozen=True, slots=True)
class Turn:
    """A message as a vector sees it: who said what, and where in its session."""

    speaker: str
    content: str
    session_id: str
    seq: int

    @property
    def text(self) -> str:
        """The turn as memorize embeds it."""
        return f'{self.speaker} said, "{self.content}"'


@dataclass(frozen=True, slots=True)
class StoredMemory:
    """A memory to re-embed: what decides how its vector is made."""

    id: str
    kind: str
    level: str
    source: str
    content: str


class Recipe(StrEnum):
    """Where a memory's vector comes from."""

    CONTENT = "content"
    TURN = "turn"  # its own source message


def recipe(memory: StoredMemory) -> Recipe:
    """How ``memory``'s vector was made (see the module docstring)."""
    extracted = memory.source == MemorySource.EXTRACTION and memory.level == MemoryLevel.FULL
    quoted = memory.kind == MemoryKind.EVENT or (
        memory.kind == MemoryKind.SEMANTIC and is_quote(memory.content)
    )
    if extracted and quoted:
        return Recipe.TURN
    return Recipe.CONTENT


def texts_needed(
    memories: Sequence[StoredMemory],
    turns: Mapping[str, Sequence[Turn]],
    previous: Mapping[tuple[str, int], Turn],
) -> list[str]:
    """Every distinct text the page's vectors are made of, in a stable order."""
    texts: dict[str, None] = {}
    for memory in memories:
        kind = recipe(memory)
        own = turns.get(memory.id, ())
        if kind is Recipe.CONTENT or not own:
            texts[memory.content] = None
        else:
            texts[own[0].text] = None
            before = previous.get((own[0].session_id, own[0].seq))
            if before is not None:
                texts[before.text] = None
    return list(texts)


def memory_vector(
    memory: StoredMemory,
    turns: Sequence[Turn],
    previous: Mapping[tuple[str, int], Turn],
    vectors: Mapping[str, Sequence[float]],
    context_weight: float,
) -> list[float]:
    """``memory``'s vector from the page's embedded texts (``vectors`` by text).

    A memory whose messages are gone (deleted since) falls back to its content.
    """
    kind = recipe(memory)
    if kind is Recipe.CONTENT or not turns:
        return list(vectors[memory.content])
    own = vectors[turns[0].text]
    before = previous.get((turns[0].session_id, turns[0].seq))
    if before is None:
        return list(own)
    return blend(own, centroid([vectors[before.text], own]), context_weight)


def unit_vector(turns: Sequence[Turn], vectors: Mapping[str, Sequence[float]]) -> list[float]:
    """A MemUnit's vector: the centroid of its messages' turn vectors."""
    return centroid([vectors[t.text] for t in turns])
