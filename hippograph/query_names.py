"""The question without the names of its speakers, which the vector side weighs down.

Every turn's vector says who spoke (``"Ann said, …"``, hippograph/turns.py),
and turns that greet or answer a person name them ("Wow, Ann!"). A question
about one of the conversation's own people ("What does Ann do to unwind?")
therefore sits near every turn that names or addresses Ann, whatever the turn
is about, and the topic the question asks for is drowned out. Among one
user's memories the participants' names carry little topical meaning, yet a
question about one person prefers that person's statements; so the vector
side searches with the mean of the question without them and as asked
(services/search.py), and the keyword side, time and the entity walk read
the whole question. With MiniLM, stripping the names outright took HYBRID
memory recall@10 from 0.824 to 0.841 on LoCoMo dev and 0.591 to 0.608 on
REALTALK dev; with e5-small the mean beat both stripping and keeping them
(docs/retrieval.md).

Only occurrences written with a capital are taken as names (a speaker called
"Will" leaves "what will she do" alone), and role words that systems use as
speakers ("user", "assistant") are never removed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Speakers that are roles, not people: agents' transcripts use them.
ROLES = frozenset({"user", "assistant", "system", "ai", "bot", "human", "agent", "me", "i"})
# A possessive or plural ending goes with the name ("Ann's", "Ann’s", "the Smiths'").
_ENDING = r"(?:['’]s|s['’]|['’])?"


def name_forms(names: Iterable[str]) -> tuple[str, ...]:
    """The forms of ``names`` to remove: each whole name, and its first word when it has several.

    Longest first, so "Ann Lee" goes before "Ann" can split it; roles and
    single letters are left out.
    """
    forms: set[str] = set()
    for name in names:
        words = name.split()
        if not words:
            continue
        candidates = [" ".join(words)]
        if len(words) > 1:
            candidates.append(words[0])
        for form in candidates:
            if len(form) > 1 and form.lower() not in ROLES and re.search(r"\w", form):
                forms.add(form)
    return tuple(sorted(forms, key=lambda f: (-len(f), f.lower())))


def without_names(query: str, names: Iterable[str]) -> str:
    """``query`` with the given people's names taken out, or ``query`` itself.

    A name counts only where the query writes it with a capital. When nothing
    but names (and punctuation) would be left, the query is returned whole:
    a query that is only a name asks about that person.
    """
    forms = name_forms(names)
    if not forms:
        return query
    alternatives = "|".join(re.escape(f) for f in forms)
    pattern = re.compile(rf"(?<!\w)(?:{alternatives}){_ENDING}(?!\w)", re.IGNORECASE)
    removed = pattern.sub(lambda m: "" if m.group(0)[:1].isupper() else m.group(0), query)
    if removed == query:
        return query
    tidy = re.sub(r"\s+([,.;:!?])", r"\1", re.sub(r"\s{2,}", " ", removed)).strip()
    return tidy if re.search(r"\w", tidy) else query
