"""A speaker's near-repeat within one call takes the id of what they said before."""

from __future__ import annotations

from datetime import UTC, datetime

from hippograph.extraction.assemble import MemoryDraft, UnitDraft
from hippograph.extraction.restatements import fold_restatements
from hippograph.models import Memory, MemoryKind, MemUnit, Sources

T = datetime(2023, 7, 17, tzinfo=UTC)


def _memory(memory_id: str, message_id: str, content: str, user: str = "caro") -> MemoryDraft:
    memory = Memory(
        id=memory_id,
        user_id=user,
        kind=MemoryKind.EVENT,
        content=content,
        importance=0.5,
        created_at=T,
        last_accessed_at=T,
    )
    return MemoryDraft(memory=memory, search_text="", sources=Sources(message_ids=(message_id,)))


def _unit(*memories: MemoryDraft) -> UnitDraft:
    unit = MemUnit(
        id="u", user_ids=("caro",), session_id="s", summary="", narrative="", subject="", ts=T
    )
    return UnitDraft(
        unit=unit, vector=[1.0, 0.0], search_text="", message_ids=(), memories=memories
    )


def _said(speaker: str, words: str) -> str:
    return f"On 17 July 2023, {speaker} said: “{words}”"


def test_a_near_repeat_of_the_same_speaker_and_user_takes_the_first_id() -> None:
    turns = {
        "m1": ("Caroline", [1.0, 0.0]),
        "m2": ("Caroline", [0.99, 0.05]),  # the same again
        "m3": ("Melanie", [0.99, 0.05]),  # the same words from someone else
        "m4": ("Caroline", [0.0, 1.0]),  # something else
        "m5": ("Caroline", [0.99, 0.05]),
    }
    first = _unit(
        _memory("a", "m1", _said("Caroline", "Art show next month!")),
        _memory("b", "m2", _said("Caroline", "Next month: my art show!")),
        _memory("c", "m3", _said("Melanie", "Art show next month!")),
    )
    later = _unit(
        _memory("d", "m4", _said("Caroline", "I adopted a dog.")),
        # not words: a model's fact, or a profile attribute, is left alone
        _memory("e", "m5", "Caroline is planning an art show"),
        _memory("f", "m5", _said("Caroline", "The art show is next month."), user="mel"),
    )
    folded = fold_restatements([first, later], turns, threshold=0.96)
    assert [[d.memory.id for d in u.memories] for u in folded] == [["a", "a", "c"], ["d", "e", "f"]]
    # what it said and where it came from are its own: the write links its message
    assert folded[0].memories[1].sources.message_ids == ("m2",)
    assert folded[0].memories[1].memory.content == _said("Caroline", "Next month: my art show!")


def test_nothing_folds_above_a_cosine_of_one() -> None:
    turns = {"m1": ("Caroline", [1.0, 0.0]), "m2": ("Caroline", [1.0, 0.0])}
    unit = _unit(
        _memory("a", "m1", _said("Caroline", "Hi there")),
        _memory("b", "m2", _said("Caroline", "Hi there!")),
    )
    [folded] = fold_restatements([unit], turns, threshold=1.01)
    assert [d.memory.id for d in folded.memories] == ["a", "b"]


def test_the_parts_of_one_long_message_are_not_repeats_of_each_other() -> None:
    turns = {"m1": ("Caroline", [1.0, 0.0])}
    unit = _unit(
        _memory("a", "m1", "On 17 July 2023, Caroline said (part 1 of 2): “I love hiking.”"),
        _memory("b", "m1", "On 17 July 2023, Caroline said (part 2 of 2): “I love hiking.”"),
    )
    [folded] = fold_restatements([unit], turns, threshold=0.96)
    assert [d.memory.id for d in folded.memories] == ["a", "b"]
