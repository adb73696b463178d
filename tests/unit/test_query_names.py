"""The query the vector side embeds: the speakers' names taken out."""

from __future__ import annotations

import pytest

from hippograph.query_names import name_forms, without_names


def test_each_name_and_the_first_word_of_a_longer_one_longest_first() -> None:
    assert name_forms(["Ann Lee", "bob", "user", "X", " "]) == ("Ann Lee", "Ann", "bob")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What does Melanie do to destress?", "What does do to destress?"),
        ("What is Caroline's identity?", "What is identity?"),
        ("What is Caroline’s identity?", "What is identity?"),
        ("Where did Elise and Melanie go, and when?", "Where did and go, and when?"),
        ("When did Ann Lee move?", "When did move?"),
        # a speaker recorded in lower case is still a name where the query capitalises it
        ("What does ELISE like?", "What does like?"),
    ],
)
def test_names_written_with_a_capital_are_removed(query: str, expected: str) -> None:
    assert without_names(query, ["Melanie", "Caroline", "elise", "Ann Lee"]) == expected


@pytest.mark.parametrize(
    "query",
    [
        "what will she do next week",  # "will" is no name in lower case
        "Willow trees by the river",  # a longer word that starts like a name
        "What did the User say about the Assistant?",  # roles are not people
        "Melanie?",  # only a name: the question is about that person
        "No names here at all",
    ],
)
def test_everything_else_is_left_alone(query: str) -> None:
    assert without_names(query, ["Will", "Melanie", "user", "assistant"]) == query


def test_no_names_no_change() -> None:
    assert without_names("What does Ann like?", []) == "What does Ann like?"
