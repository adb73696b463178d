"""A profile value cut to the value itself: "Lisbon", not "Lisbon last month".

The offline extractor's patterns catch what follows "I moved to" or "my
favourite pasta is" up to the end of the clause, and people go on talking:
"I moved to Lisbon last month", "my favourite pasta is actually ravioli",
"my favourite painting is called Blue Rider". A value keeps only what names
the thing: for names and places, the run of capitalised words; for the
rest, the words left once fillers in front ("actually", "called") and a
time behind ("last month", "these days") are taken off.
"""

from __future__ import annotations

import re

# Values that are proper names: a run of capitalised words, joined by the
# lowercase particles place and person names carry.
PROPER_NAME_ATTRIBUTES = frozenset({"name", "employer", "city"})
_PARTICLES = frozenset({"de", "da", "do", "del", "della", "di", "du", "la", "le", "van", "von"})
_PARTICLES |= frozenset({"of", "on", "upon", "am", "im", "and", "y", "al", "el", "bin"})

_LEADING = re.compile(
    r"^(?:(?:actually|really|probably|definitely|honestly|still|now|currently|just|"
    r"totally|absolutely|obviously|kind of|sort of|called|named|titled|"
    r"this one called|one called|the one called|something called)\s+)+",
    re.IGNORECASE,
)
_TRAILING = re.compile(
    r"\s+(?:(?:last|this|next|that) (?:week|month|year|summer|winter|spring|autumn|fall|"
    r"weekend|time)|(?:a|one|two|three|few|couple of) \w+ ago|ago|yesterday|today|"
    r"tomorrow|recently|lately|now|these days|right now|at the moment|for now|anymore|"
    r"again|too|as well|though|actually|honestly|in \d{4}|since \w+(?: \d{4})?)\b.*$",
    re.IGNORECASE,
)
_EDGES = " \t\"'“”‘’,;:-"
_CJK = re.compile(r"[\u4e00-\u9fff]")


def clean_value(attribute: str, raw: str) -> str | None:
    """``raw`` cut to the value it names; None when nothing of a value is left."""
    value = raw.strip(_EDGES)
    if _CJK.search(value):
        return value or None  # the Chinese patterns capture the value alone
    value = _LEADING.sub("", value)
    value = _TRAILING.sub("", value).strip(_EDGES)
    if attribute in PROPER_NAME_ATTRIBUTES:
        value = _proper_name(value)
    return value or None


def _proper_name(value: str) -> str:
    """The leading run of capitalised words ("the" may open it: "the Bay Area")."""
    words = value.split()
    kept: list[str] = []
    for index, word in enumerate(words):
        following = words[index + 1] if index + 1 < len(words) else ""
        if not _in_name(word, following, opening=not kept):
            break
        kept.append(word)
    return " ".join(kept) if any(w[:1].isupper() for w in kept) else ""


def _in_name(word: str, following: str, *, opening: bool) -> bool:
    """Whether ``word`` belongs to a name: capitalised, a number inside one, or a
    particle ("the" opening it, "de" within it) before a capitalised word. The
    pronoun "I" (and "I'm", "I've"…) is capitalised but starts the next clause:
    "I moved to Boston and I love it" names Boston."""
    if _is_pronoun_i(word) or (_is_pronoun_i(following) and word.lower() in _PARTICLES):
        return False
    if word[:1].isupper() or (word[:1].isdigit() and not opening):
        return True
    particle = word.lower() == "the" if opening else word.lower() in _PARTICLES
    return particle and following[:1].isupper()


def _is_pronoun_i(word: str) -> bool:
    return word == "I" or word.startswith(("I'", "I’"))
