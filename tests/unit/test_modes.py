"""AUTO mode looks back when the query asks about the past."""

from __future__ import annotations

import pytest

from hippograph.models import MemoryLevel
from hippograph.modes import SearchMode, levels_for, resolve_mode


@pytest.mark.parametrize(
    "query",
    [
        "我以前说过什么？",
        "帮我回顾一下我过去的偏好",
        "很久以前我好像提过咖啡",
        "What did I use to like back then?",
        "remember when we talked about Paris",
        "Did I ever mention a dog?",
    ],
)
def test_questions_about_the_past_switch_to_review(query: str) -> None:
    assert resolve_mode(SearchMode.AUTO, query) is SearchMode.REVIEW


@pytest.mark.parametrize(
    "query", ["我喜欢什么？", "What coffee do I like?", "Finish this before noon"]
)
def test_other_questions_stay_normal(query: str) -> None:
    assert resolve_mode(SearchMode.AUTO, query) is SearchMode.NORMAL


def test_explicit_modes_are_kept() -> None:
    assert resolve_mode(SearchMode.NORMAL, "以前") is SearchMode.NORMAL
    assert resolve_mode(SearchMode.REVIEW, "now") is SearchMode.REVIEW


def test_levels_per_mode() -> None:
    assert levels_for(SearchMode.NORMAL, None) == (MemoryLevel.FULL, MemoryLevel.SUMMARY)
    assert levels_for(SearchMode.REVIEW, None) == tuple(MemoryLevel)
    assert levels_for(SearchMode.NORMAL, (MemoryLevel.TRACE, MemoryLevel.FULL)) == (
        MemoryLevel.FULL,
    )
