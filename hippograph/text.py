"""Tokens for keyword search, the same on both graph servers.

Both full-text indexes use a whitespace analyzer, so the words are decided
here: lower-cased, CJK runs segmented into words with jieba (search mode, so
"喝咖啡" also yields "咖啡"), stop words dropped, English words stemmed
(Snowball: "painting" and "painted" both become "paint"), and only word
characters kept.
That last rule matters twice: Lucene's query syntax has no special meaning for
any token we emit, and the user-scoping clause of a query cannot be escaped.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
import threading
from collections.abc import Iterable
from importlib import resources

import jieba
import snowballstemmer

jieba.setLogLevel(logging.WARNING)
# A Snowball stemmer keeps the word it works on in itself: two threads
# stemming at once (a search on the event loop, a memorize step on the
# background thread) corrupted each other's word and one of them failed
# with IndexError. One stemmer per thread.
_stemmers = threading.local()

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_SAFE = re.compile(r"^[^\W_]+$", re.UNICODE)


def _load_words(name: str) -> frozenset[str]:
    raw = resources.files("hippograph.data").joinpath(name).read_text(encoding="utf-8")
    # A line's "#" starts a comment: the files' headers are not stop words
    # (the header's "search", "stop" and "keyword" were dropped from queries).
    return frozenset(w for line in raw.splitlines() for w in line.split("#", 1)[0].split())


ENGLISH_STOP_WORDS = _load_words("stopwords-en.txt")
CHINESE_STOP_WORDS = _load_words("stopwords-zh.txt")

STOP_WORDS = ENGLISH_STOP_WORDS | CHINESE_STOP_WORDS


def tokenize(text: str) -> list[str]:
    """Search tokens of ``text`` in order, duplicates kept (term frequency matters)."""
    tokens: list[str] = []
    position = 0
    for match in _CJK_RUN.finditer(text):
        tokens.extend(_latin_tokens(text[position : match.start()]))
        tokens.extend(_cjk_tokens(match.group()))
        position = match.end()
    tokens.extend(_latin_tokens(text[position:]))
    return [t for t in tokens if t not in STOP_WORDS and _SAFE.match(t)]


def search_text(text: str) -> str:
    """What goes into a node's ``search_text`` property: tokens joined by spaces."""
    return " ".join(tokenize(text))


def query_terms(text: str) -> list[str]:
    """Distinct search tokens of a query, in first-seen order."""
    return list(dict.fromkeys(tokenize(text)))


def _latin_tokens(text: str) -> Iterable[str]:
    for match in _WORD.finditer(text.lower()):
        word = match.group().replace("’", "'")
        if "'" in word:
            # "caroline's" indexes as "caroline": the possessive carries no meaning
            # of its own and would otherwise never match the bare name.
            if word in STOP_WORDS:
                continue
            word = word.split("'", 1)[0]
        if word in STOP_WORDS:
            continue
        # Stemmed after the stop-word check, which is on whole words.
        yield _stem(word) if word.isascii() else word


# Snowball in pure Python costs as much per text as embedding it, and a
# conversation's vocabulary is small and repeats: measured on the LoCoMo
# ingest, memoising the stems took tokenising from about half of memorize's
# Python time to a few percent.
@functools.lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))


def _cjk_tokens(run: str) -> Iterable[str]:
    for word in jieba.cut_for_search(run):
        word = word.strip().lower()
        if word:
            yield word


def user_token(user_id: str) -> str:
    """The one-token key that scopes a full-text query to ``user_id``.

    User ids may hold characters the analyzers split on or Lucene parses
    (``.:@-``), so the index gets a hex digest: one lower-case token on both
    servers, impossible to confuse with a content word.
    """
    return "u" + hashlib.sha256(user_id.encode()).hexdigest()[:24]
