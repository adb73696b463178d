"""What each stored vector is made of: a speaker's words are re-embedded as their turn."""

from __future__ import annotations

import pytest

from hippograph.extraction.assemble import quoted_words
from hippograph.models import MemoryKind, MemoryLevel, MemorySource
from hippograph.reembedding import Recipe, StoredMemory, recipe

QUOTE = "On 7 May 2023, Ann said: “I love hiking with my dog.”"


@pytest.mark.parametrize(
    ("kind", "content", "level", "expected"),
    [
        (MemoryKind.EVENT, QUOTE, MemoryLevel.FULL, Recipe.TURN),
        # The offline extractor's fact is its speaker's words, embedded as the turn.
        (MemoryKind.SEMANTIC, QUOTE, MemoryLevel.FULL, Recipe.TURN),
        # A model's fact is its own words.
        (MemoryKind.SEMANTIC, "Ann loves hiking.", MemoryLevel.FULL, Recipe.CONTENT),
        (MemoryKind.SEMANTIC, QUOTE, MemoryLevel.SUMMARY, Recipe.CONTENT),
        (MemoryKind.PROFILE, "Ann's city: Lisbon", MemoryLevel.FULL, Recipe.CONTENT),
    ],
)
def test_the_recipe_follows_what_the_vector_was_made_of(
    kind: MemoryKind, content: str, level: MemoryLevel, expected: Recipe
) -> None:
    memory = StoredMemory(
        id="m1", kind=kind, level=level, source=MemorySource.EXTRACTION, content=content
    )
    assert recipe(memory) is expected


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (QUOTE, "I love hiking with my dog."),
        ("On 7 May 2023, Ann said (part 2 of 3): “and then home.”", "and then home."),
        ("Ann loves hiking.", "Ann loves hiking."),  # a model's words: as they are
    ],
)
def test_a_quote_is_told_by_its_words(content: str, words: str) -> None:
    assert quoted_words(content) == words
