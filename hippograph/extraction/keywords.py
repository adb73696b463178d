"""Keywords of a passage: candidate phrases (runs of content words) scored by use.

A candidate is a run of up to three consecutive words that are not stop
words. It scores its frequency in the passage, more for longer phrases (they
are more specific) and for proper names; the best distinct ones are kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from hippograph.text import STOP_WORDS

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|[\u4e00-\u9fff]{2,}")
_SENTENCE_BREAK = re.compile(r"[.!?;:,()\"“”\n]+")


def candidate_phrases(text: str, max_words: int = 3) -> list[str]:
    """Every candidate phrase of ``text``, in order, with repeats."""
    phrases: list[str] = []
    for chunk in _SENTENCE_BREAK.split(text):
        run: list[str] = []
        for word in _WORD.findall(chunk):
            if word.lower() in STOP_WORDS or len(word) < 3:
                phrases.extend(_runs(run, max_words))
                run = []
            else:
                run.append(word)
        phrases.extend(_runs(run, max_words))
    return phrases


def _runs(run: Sequence[str], max_words: int) -> list[str]:
    found = []
    for size in range(1, max_words + 1):
        for start in range(len(run) - size + 1):
            found.append(" ".join(run[start : start + size]))
    return found


def keywords(texts: Sequence[str], limit: int = 8) -> list[str]:
    """The ``limit`` best keywords of a passage, lower-cased, best first."""
    counts: Counter[str] = Counter()
    proper: set[str] = set()
    for text in texts:
        for phrase in candidate_phrases(text):
            key = phrase.lower()
            counts[key] += 1
            if phrase[:1].isupper():
                proper.add(key)

    def score(key: str) -> float:
        words = key.count(" ") + 1
        return counts[key] * (1 + 0.5 * (words - 1)) + (0.5 if key in proper else 0.0)

    chosen: list[str] = []
    for key in sorted(counts, key=lambda k: (-score(k), k)):
        # A phrase inside a chosen one (or around it) adds nothing new.
        if any(key in c or c in key for c in chosen):
            continue
        chosen.append(key)
        if len(chosen) == limit:
            break
    return chosen
