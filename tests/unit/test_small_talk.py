"""Small talk: courtesies with nothing to remember are messages, not memories."""

from __future__ import annotations

import pytest

from hippograph.extraction.small_talk import is_small_talk


@pytest.mark.parametrize(
    "text",
    [
        "That sounds awesome!",
        "I fully agree.",
        "Hey Kate. I’m doing well. How are you doing?",
        "What about you Kate?",
        "That looks amazing! 😍",
        "Thanks, you too!",
        "Great talking to you today Kate. See you tomorrow",
    ],
)
def test_courtesies_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize(
    "text",
    [
        "I met Kate today",  # a verb: something happened
        "Miami!",  # a place is an answer
        "Kate is great",  # about someone, not to them
        "I got the job!",
        "Thanks! See you on the 14th",  # a date
        "Any favorite moments for you Kate?",
        "你好",  # the courtesies listed are English
        "Thanks, Melanie! " + "It means a lot to me that you came to the art show. " * 3,
    ],
)
def test_anything_more_is_kept(text: str) -> None:
    assert not is_small_talk(text)
