"""Keyword tokens: lower-cased, CJK segmented, stop words out, nothing Lucene could parse."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

import snowballstemmer

from hippograph import text
from hippograph.text import STOP_WORDS, query_terms, search_text, tokenize, user_token


def test_english_is_lowercased_stemmed_and_stop_words_dropped() -> None:
    assert tokenize("I went to THE Alps with my Sister") == ["went", "alp", "sister"]


def test_inflections_meet_at_their_stem() -> None:
    assert tokenize("painting painted paints") == ["paint"] * 3
    assert tokenize("camping") == tokenize("camped")


def test_possessives_index_as_the_name() -> None:
    assert tokenize("Caroline's painting") == tokenize("Caroline painting")


def test_chinese_is_segmented_so_a_word_is_found_inside_a_phrase() -> None:
    # "我喜欢喝咖啡" must be able to find "咖啡": search mode yields both words.
    tokens = tokenize("我喜欢喝咖啡")
    assert "咖啡" in tokens
    assert "喝咖啡" in tokens
    assert "我" not in tokens


def test_mixed_text_keeps_both_scripts() -> None:
    assert tokenize("Python 和 咖啡") == ["python", "咖啡"]


def test_lucene_syntax_never_survives() -> None:
    tokens = tokenize('title:(x) AND "y" OR z~2 +a -b c* \\d NOT e:f^3')
    assert all(token.isalnum() for token in tokens)
    assert "and" not in tokens
    assert "or" not in tokens
    assert "not" not in tokens


def test_query_terms_are_distinct_and_ordered() -> None:
    assert query_terms("tea coffee tea coffee") == ["tea", "coffe"]
    assert search_text("tea tea coffee") == "tea tea coffe"


def test_user_tokens_are_one_lowercase_word() -> None:
    token = user_token("alice@example.com")
    assert token.isalnum()
    assert token == token.lower()
    assert token.startswith("u")
    assert token != user_token("alice@example.org")


def test_threads_stemming_at_once_each_get_their_own_stems() -> None:
    # A search tokenises on the event loop while a memorize step does on the
    # background thread: one shared Snowball stemmer mixed up their words.
    words = [f"{stem}{i}ing" for i in range(4000) for stem in ("walk", "relational", "hopeful")]
    expected = [snowballstemmer.stemmer("english").stemWord(w) for w in words]
    text._stem.cache_clear()
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda chunk: [text._stem(w) for w in chunk], [words] * 4))
    finally:
        sys.setswitchinterval(before)
        text._stem.cache_clear()
    assert all(result == expected for result in results)


def test_the_stop_word_files_headers_are_not_stop_words() -> None:
    # Their header comments once made "stop", "search" and "keyword" stop words.
    assert tokenize("the bus stop near the search keyword")[:2] == ["bus", "stop"]
    assert {"search", "keyword", "indexing", "dropped", "jieba"}.isdisjoint(STOP_WORDS)
