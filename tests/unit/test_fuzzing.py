"""Offline fuzzing: each level's text, in English and Chinese, always from the original."""

from __future__ import annotations

from hippograph.fuzzing import FuzzRequest, FuzzText, compose, language_of, offline_fuzz
from hippograph.models import MemoryLevel

COFFEE_ZH = "用户喜欢喝美式咖啡，不加糖不加奶"
COFFEE_EN = "Ann likes black coffee without sugar, and she drinks it every morning at the cafe."


def fuzz(text: str, level: MemoryLevel, name: str = "") -> str:
    request = FuzzRequest(text=text, level=level, language=language_of(text), user_name=name)
    return offline_fuzz(request).content


def test_language() -> None:
    assert language_of(COFFEE_ZH) == "zh"
    assert language_of(COFFEE_EN) == "en"
    assert language_of("我 like 咖啡 very much indeed") == "en"
    assert language_of("1234") == "en"


def test_chinese_levels_follow_note_002() -> None:
    assert fuzz(COFFEE_ZH, MemoryLevel.FULL) == COFFEE_ZH
    assert fuzz(COFFEE_ZH, MemoryLevel.SUMMARY) == "用户喜欢喝美式咖啡"
    assert fuzz(COFFEE_ZH, MemoryLevel.TAG) == "标签：美式咖啡"
    assert fuzz(COFFEE_ZH, MemoryLevel.TRACE) == "用户曾经有美式咖啡相关记忆"
    assert fuzz(COFFEE_ZH, MemoryLevel.ARCHIVE) == "历史痕迹：美式咖啡"


def test_english_levels() -> None:
    assert fuzz(COFFEE_EN, MemoryLevel.SUMMARY, "Ann") == "Ann likes black coffee without sugar"
    assert fuzz(COFFEE_EN, MemoryLevel.TAG, "Ann") == "tags: black coffee, sugar, morning"
    assert fuzz(COFFEE_EN, MemoryLevel.TRACE, "Ann") == (
        "the user once had memories about black coffee"
    )
    assert fuzz(COFFEE_EN, MemoryLevel.ARCHIVE, "Ann") == "archived trace: black coffee"


def test_long_text_is_cut_and_nothing_is_empty() -> None:
    long = " ".join(f"word{i}" for i in range(40))
    assert fuzz(long, MemoryLevel.SUMMARY).endswith("…")
    assert len(fuzz(long, MemoryLevel.SUMMARY).split()) == 16
    assert fuzz("ok", MemoryLevel.TAG) == "ok"
    assert fuzz("ok", MemoryLevel.TRACE) == "the user once had memories about a past conversation"


def test_a_summary_of_quoted_speech_keeps_its_quotes_balanced() -> None:
    # Turn memories read 'X said, "…"'; a sentence split must not leave the
    # closing quote at the start of the next sentence, nor a quote count as a word.
    two = 'Mel said, "I ran far." Gina said, "Wow, running is fun, I love it"'
    assert fuzz(two, MemoryLevel.SUMMARY, "Gina") == 'Gina said, "Wow, running is fun, I love it"'
    one = 'Ann said: "I adopted a puppy named Rex last week."'
    assert fuzz(one, MemoryLevel.SUMMARY, "Ann") == one
    cut = 'Bo said, "' + " ".join(f"word{i}" for i in range(30)) + '"'
    assert fuzz(cut, MemoryLevel.SUMMARY).endswith('…"')
    assert fuzz("他说：“我今天跑了很远很远很远很远的路。”", MemoryLevel.SUMMARY).count("”") == 1


def test_trace_and_archive_use_the_notes_wording_whatever_the_fuzzer_said() -> None:
    answer = FuzzText(content="anything", topic="drinks")
    assert (
        compose(MemoryLevel.TRACE, "x", answer, "en") == "the user once had memories about drinks"
    )
    assert compose(MemoryLevel.ARCHIVE, "x", answer, "zh") == "历史痕迹：drinks"
    assert compose(MemoryLevel.SUMMARY, "x", answer, "en") == "anything"
    assert compose(MemoryLevel.FULL, "x", answer, "en") == "x"


def test_a_summary_keeps_numbers_times_and_addresses_whole() -> None:
    assert fuzz("Ann paid 12,000 dollars for the used car in March", MemoryLevel.SUMMARY) == (
        "Ann paid 12,000 dollars for the used car in March"
    )
    assert fuzz("The meeting with Bob starts at 10:30 every Monday", MemoryLevel.SUMMARY) == (
        "The meeting with Bob starts at 10:30 every Monday"
    )
    assert fuzz("Ann takes 2.5 mg of melatonin before sleeping", MemoryLevel.SUMMARY) == (
        "Ann takes 2.5 mg of melatonin before sleeping"
    )
    assert fuzz("Ann's email is ana.lopez@example.com for work", MemoryLevel.SUMMARY) == (
        "Ann's email is ana.lopez@example.com for work"
    )
    # A comma after a number still ends a clause.
    assert fuzz("Ann moved to Lisbon in 2023, and she took two cats", MemoryLevel.SUMMARY) == (
        "Ann moved to Lisbon in 2023"
    )
