"""The query the vector side embeds: the question without the names of its speakers.

Every turn's vector says who spoke (``"Ann said, …"``, hippograph/turns.py),
and turns that greet or answer a person name them ("Wow, Ann!"). A question
about one of the conversation's own people ("What does Ann do to unwind?")
therefore sits near every turn that names or addresses Ann, whatever the turn
is about, and the topic the question asks for is drowned out. Among one
user's memories the participants' names carry no topical meaning, so the
vector side embeds the question without them; the keyword side, time and the
entity walk still read the whole question. Measured on both dev files
(bench/README.md, 2026-11-26): HYBRID memory recall@10 0.824 → 0.841 on
LoCoMo, 0.591 → 0.608 on REALTALK; VECTOR alone 0.585 → 0.650 on LoCoMo.

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
