"""Fuzzing: what a memory says at each of note 002's levels.

A memory keeps its words in ``original_content``; its ``content`` is this
text at its current level, always rebuilt from the original, so going down
two levels or back up to full gives the same text as getting there in steps.

* full — the original.
* summary — shorter: the LLM's summary, or offline the most telling
  sentence cut to its first clause ("用户喜欢喝美式咖啡，不加糖不加奶" →
  "用户喜欢喝美式咖啡").
* tag — a few words: the LLM's tag, or offline "tags: black coffee, cafe".
* trace — "the user once had memories about <topic>" (用户曾经有<topic>相关记忆).
* archive — "archived trace: <topic>" (历史痕迹：<topic>).

Trace and archive use the note's fixed wording whichever adapter found the
topic. Offline fuzzing is pure text work (no model): a pass over a hundred
thousand memories must not wait on it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, Field

from hippograph.extraction.keywords import candidate_phrases
from hippograph.models import MemoryLevel
from hippograph.ports import Usage
from hippograph.text import STOP_WORDS

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
# A sentence ends at its stop and any closing quotes after it: 'said, "Hi." Then'
# splits into 'said, "Hi.' and 'Then', not into '…Hi.' and '" Then'. A Latin
# stop needs a space or the end after it: "2.5 mg" and "ana.lopez@example.com"
# are not two sentences.
_SENTENCES = re.compile(r"(?<=[.!?])[\"”」』]*(?:\s+|$)|(?<=[。！？])[\"”」』]*\s*")
# A comma or colon between digits is part of a number or a time (12,000; 10:30).
_CLAUSES = re.compile(r"\s*(?:(?<!\d)[,:]|[,:](?!\d)|[;，；：、—])\s*|\s+-\s+")
_SUMMARY_WORDS = 16
_SUMMARY_CHARS = 32  # CJK characters
_TAGS = 3
# Words that say what someone did rather than what about: never a topic.
_VERBS = frozenset(
    """
    like likes liked love loves loved enjoy enjoys enjoyed prefer prefers preferred want
    wants wanted need needs needed said says say told tell tells went go goes going get gets
    got make makes made take takes took drink drinks drank eat eats ate think thinks thought
    feel feels felt know knows knew see sees saw start started started try tries tried plan
    plans planned visit visits visited mentioned mention mentions shared share shares talked
    talk talks user users really also just always usually sometimes every without with
    within about yesterday today tomorrow tonight ago last next soon lately recently
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
_CJK_SKIP = frozenset({"用户", "我", "你", "他", "她", "我们", "他们", "东西", "时候", "事情"})
_FALLBACK_TOPIC = {"en": "a past conversation", "zh": "过去的对话"}


class FuzzRequest(BaseModel):
    """What a fuzzer is asked: this memory's original text, at this level."""

    text: str = Field(min_length=1)
    level: MemoryLevel
    language: str = "en"
    user_name: str = ""


class FuzzText(BaseModel):
    """A fuzzer's answer: the text at the level asked and the memory's topic."""

    content: str = Field(min_length=1, max_length=2000)
    topic: str = Field(default="", max_length=120)
    usage: Usage = Field(default_factory=Usage)


def chinese_share(text: str) -> float:
    """The share of ``text``'s letters that are Chinese characters (0 without letters)."""
    letters = len(_LETTER.findall(text))
    return len(_CJK.findall(text)) / letters if letters else 0.0


def language_of(text: str) -> str:
    """``zh`` when at least 30% of the letters are Chinese, else ``en``."""
    return "zh" if chinese_share(text) >= 0.3 else "en"


def trace_text(topic: str, language: str) -> str:
    """Note 002's trace: the user once had memories about the topic."""
    topic = topic or _FALLBACK_TOPIC.get(language, _FALLBACK_TOPIC["en"])
    if language == "zh":
        return f"用户曾经有{topic}相关记忆"
    return f"the user once had memories about {topic}"


def archive_text(topic: str, language: str) -> str:
    """Note 002's archive: a historical trace of the topic."""
    topic = topic or _FALLBACK_TOPIC.get(language, _FALLBACK_TOPIC["en"])
    return f"历史痕迹：{topic}" if language == "zh" else f"archived trace: {topic}"


def compose(level: MemoryLevel, original: str, answer: FuzzText, language: str) -> str:
    """The content at ``level``: the original, the fuzzer's text, or the note's wording."""
    if level is MemoryLevel.FULL:
        return original
    if level is MemoryLevel.TRACE:
        return trace_text(answer.topic, language)
    if level is MemoryLevel.ARCHIVE:
        return archive_text(answer.topic, language)
    return answer.content


def offline_fuzz(request: FuzzRequest) -> FuzzText:
    """The extractive fuzzer: deterministic, no model, no network."""
    names = {w.lower() for w in request.user_name.split()}
    topics = (
        _cjk_topics(request.text, names)
        if request.language == "zh"
        else _latin_topics(request.text, names)
    )
    topic = " ".join(topics[:1])
    if request.level is MemoryLevel.SUMMARY:
        content = summarise(request.text, topics, request.language)
    elif request.level is MemoryLevel.TAG:
        content = tag_text(topics[:_TAGS], request.language) or summarise(
            request.text, topics, request.language
        )
    else:
        answer = FuzzText(content="-", topic=topic)
        content = compose(request.level, request.text, answer, request.language)
    return FuzzText(content=content[:2000], topic=topic[:120])


def tag_text(tags: list[str], language: str) -> str:
    """A tag line: ``tags: a, b, c`` (``标签：a、b、c``); empty without tags."""
    if not tags:
        return ""
    return "标签：" + "、".join(tags) if language == "zh" else "tags: " + ", ".join(tags)


def summarise(text: str, topics: list[str], language: str) -> str:
    """The sentence that holds most topics, cut to its first clause and a length budget."""
    sentences = [s.strip() for s in _SENTENCES.split(text) if s.strip()] or [text.strip()]
    wanted = [t.lower() for t in topics]

    def hits(sentence: str) -> int:
        lower = sentence.lower()
        return sum(1 for t in wanted if t in lower)

    best = max(sentences, key=hits)  # max keeps the first of equals
    clauses = [c for c in _CLAUSES.split(best) if c]
    # The first clause alone must still say something: three words or four characters.
    if len(clauses) > 1 and _size(clauses[0], language) >= (4 if language == "zh" else 3):
        best = clauses[0]
    return _close_quotes(_cut(best, language))


def _size(text: str, language: str) -> int:
    if language == "zh":
        return len(_CJK.findall(text))
    return sum(1 for word in text.split() if _LETTER.search(word))


def _close_quotes(text: str) -> str:
    """``text`` with a quotation it opens and the cut (or the split) left open closed."""
    if text.count('"') % 2:
        text += '"'
    for opening, closing in (("“", "”"), ("「", "」"), ("『", "』")):
        text += closing * max(0, text.count(opening) - text.count(closing))
    return text


def _cut(text: str, language: str) -> str:
    if language == "zh":
        return text if len(text) <= _SUMMARY_CHARS else text[:_SUMMARY_CHARS] + "…"
    words = text.split()
    return text if len(words) <= _SUMMARY_WORDS else " ".join(words[:_SUMMARY_WORDS]) + "…"


def _latin_topics(text: str, names: set[str]) -> list[str]:
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for position, phrase in enumerate(candidate_phrases(text, max_words=2)):
        words = phrase.lower().split()
        if any(w in _VERBS or w in names or w in STOP_WORDS for w in words):
            continue
        if phrase[:1].isupper() and len(words) == 1 and position == 0:
            continue  # the sentence's subject, usually the person it is about
        key = " ".join(words)
        counts[key] += 1
        first.setdefault(key, position)
    ranked = sorted(counts, key=lambda k: (-counts[k] * (1 + 0.5 * k.count(" ")), first[k]))
    return _distinct(ranked)


def _cjk_topics(text: str, names: set[str]) -> list[str]:
    # Imported on first use: loading the tagger costs a quarter second of CPU
    # at every process start, and most deployments never tag Chinese.
    import jieba.posseg

    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    # Adjacent nouns are one compound: 美式 + 咖啡 is 美式咖啡, not two topics.
    compound: list[str] = []
    position = 0
    for pair in [*jieba.posseg.lcut(text), None]:
        word = pair.word.strip() if pair is not None else ""
        noun = pair is not None and pair.flag.startswith("n") and word not in _CJK_SKIP
        if noun and word not in names:
            compound.append(word)
            continue
        joined = "".join(compound)
        compound = []
        if len(joined) >= 2:
            counts[joined] += 1
            first.setdefault(joined, position)
            position += 1
    return sorted(counts, key=lambda k: (-counts[k], first[k]))


def _distinct(ranked: Iterable[str]) -> list[str]:
    """Best first, dropping a phrase inside one already chosen (or around it)."""
    chosen: list[str] = []
    for key in ranked:
        if any(key in c or c in key for c in chosen):
            continue
        chosen.append(key)
    return chosen
