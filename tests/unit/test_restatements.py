"""A speaker's near-repeat takes the id of what they said before, in this call or an earlier one."""

from __future__ import annotations

from datetime import UTC, datetime

from hippograph.extraction.assemble import MemoryDraft, UnitDraft, quote_speaker
from hippograph.extraction.restatements import fold_restatements, renamed, said_anew, says_again
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


def test_what_a_call_says_anew_is_each_memory_in_words_once_with_its_turn() -> None:
    turns = {"m1": ("Caroline", [1.0, 0.0]), "m2": ("Caroline", [0.0, 1.0])}
    unit = _unit(
        _memory("a", "m1", _said("Caroline", "Art show next month!")),
        _memory("a", "m2", _said("Caroline", "Art show next month!")),  # folded in the call
        _memory("e", "m2", "Caroline is planning an art show"),  # not words
        _memory("g", "m9", _said("Caroline", "Hello")),  # not among the call's messages
    )
    said = said_anew([unit], turns)
    assert [(s.memory_id, s.user_id, s.speaker, list(s.vector)) for s in said] == [
        ("a", "caro", "Caroline", [1.0, 0.0])
    ]


def test_renaming_moves_every_draft_of_a_memory_and_nothing_else() -> None:
    unit = _unit(
        _memory("a", "m1", _said("Caroline", "Art show next month!")),
        _memory("a", "m2", _said("Caroline", "Next month: my art show!")),
        _memory("d", "m4", _said("Caroline", "I adopted a dog.")),
    )
    [moved] = renamed([unit], {"a": "earlier"})
    assert [d.memory.id for d in moved.memories] == ["earlier", "earlier", "d"]
    assert moved.memories[1].sources.message_ids == ("m2",)
    assert renamed([unit], {}) == [unit]


def test_the_speaker_of_dated_words_is_read_from_their_opening() -> None:
    assert quote_speaker(_said("Caroline", "Hi, Mel: how are you?")) == "Caroline"
    assert quote_speaker("On 1 May 2023, Jo Ann said (part 2 of 3): “x”") == "Jo Ann"
    assert quote_speaker("Caroline is planning an art show") is None


def test_a_close_turn_with_something_new_in_it_is_not_a_repeat() -> None:
    # measured on LoCoMo: e5 put these two at 0.96, and folding lost the festival
    pep = "I'm always here for you, Mel! Those supportive friends are worth it!"
    fact = "I'm always here for you, Mel! We had a blast last year at the Pride fest."
    assert not says_again(fact, pep)
    assert says_again("I am always here for you, Mel.", pep)
    assert says_again("Hi!", "Hello!")  # no search words: the cosine decides
    turns = {"m1": ("Caroline", [1.0, 0.0]), "m2": ("Caroline", [0.99, 0.05])}
    unit = _unit(
        _memory("a", "m1", _said("Caroline", pep)), _memory("b", "m2", _said("Caroline", fact))
    )
    [folded] = fold_restatements([unit], turns, threshold=0.96)
    assert [d.memory.id for d in folded.memories] == ["a", "b"]
