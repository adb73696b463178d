"""Entities a message mentions: people, places, organisations, things and dates.

Pure and offline, and cheap enough to run on every message memorize stores:

* the speaker is a PERSON;
* a relative date ("yesterday", "last month") resolved against when it was
  said (:mod:`hippograph.relative_dates`, the parser memorize and search
  share) is a DATE named as memorize writes it ("7 May 2023");
* a run of capitalised words that does not open a sentence is a name: an
  ORGANIZATION when its last word says so ("Club", "University", "Inc"), a
  PLACE after "in", "at", "from", "to", "near" and the like, a PERSON when it
  is a known speaker, a THING otherwise. A sentence's first word is
  capitalised whatever it is, so it only counts when the name is known
  (a speaker of the conversation);
* the message's best keyword phrases (:mod:`hippograph.extraction.keywords`)
  are THINGs.

The reading is the same whichever extractor made the memories: the LLM's
answer names no entities (its schema does not ask for them).

Entities merge per user by their normalised name: casefolded, a possessive
``'s`` dropped, whitespace collapsed, so "Caroline's" and "caroline" are one
node. :func:`entity_id` derives the node's id from the user and that name, so
every write of it, on any replay, finds the same node.

A query goes through :func:`query_norms`, which is more liberal (every phrase
of up to three content words, sentence-initial names included): only the
names the user's graph already holds are kept, so a guess costs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime

from hippograph.extraction.keywords import candidate_phrases, keywords
from hippograph.extraction.relative_time import day, month
from hippograph.ids import IdKind, derived_id
from hippograph.models import EntityKind, EntityMention, Memory, Mentions, Message
from hippograph.relative_dates import Unit, find_relative_dates
from hippograph.text import STOP_WORDS

# Longest name kept: longer "names" are sentences someone typed in capitals.
MAX_NAME = 80
# Keyword phrases taken from one message.
KEYWORDS_PER_MESSAGE = 3

# A date as memorize writes a resolved one ("7 May 2023", "May 2023").
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_WRITTEN_DATE = re.compile(rf"\b(?:\d{{1,2}} )?(?:{_MONTHS}),? \d{{4}}\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['’]s\b", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$", re.UNICODE)
# A capitalised word: an upper-case letter then letters, digits, apostrophes, hyphens.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’&-]*|[^\sA-Za-z0-9]")
_SENTENCE_END = frozenset({".", "!", "?", ":", ";", "\n", "…", '"', "“", "”", "(", ")"})
_PLACE_CUES = frozenset({"in", "at", "from", "to", "near", "visited", "visit", "around"})
_ORG_WORDS = frozenset(
    {
        "inc",
        "corp",
        "ltd",
        "llc",
        "company",
        "club",
        "university",
        "college",
        "school",
        "association",
        "foundation",
        "institute",
        "group",
        "bank",
        "hospital",
        "church",
        "center",
        "centre",
        "society",
        "team",
    }
)


def normalise(name: str) -> str:
    """The merge key of a name: casefolded, possessive dropped, whitespace collapsed."""
    folded = _POSSESSIVE.sub("", name.strip()).casefold()
    return _EDGE_PUNCT.sub("", _SPACES.sub(" ", folded)).strip()


def entity_id(user_id: str, norm: str) -> str:
    """The id of ``user_id``'s entity named ``norm``: the same on every write of it."""
    return derived_id(IdKind.ENTITY, "entity", user_id, norm)


def _usable(norm: str) -> bool:
    return 2 <= len(norm) <= MAX_NAME and norm not in STOP_WORDS and not norm.isdigit()


def _capitalised_spans(text: str, known: frozenset[str]) -> list[tuple[str, str | None]]:
    """Runs of capitalised words, with the word before each (its cue).

    A run that opens a sentence keeps only its known-name part: "Yesterday
    Caroline called" gives "Caroline"; "Maybe" alone gives nothing.
    """
    spans: list[tuple[str, str | None]] = []
    run: list[str] = []
    cue: str | None = None
    opening = True  # the next word opens a sentence
    run_opens = False
    previous: str | None = None

    def close() -> None:
        nonlocal run
        words = run
        if run_opens and words:
            # The first word is capitalised because it opens the sentence,
            # unless it is a known name.
            if normalise(words[0]) in known:
                spans.append((" ".join(words), cue))
            elif len(words) > 1:
                spans.append((" ".join(words[1:]), words[0].lower()))
        elif words:
            spans.append((" ".join(words), cue))
        run = []

    for token in _TOKEN.findall(text):
        if token in _SENTENCE_END or (len(token) == 1 and not token.isalnum()):
            close()
            opening = opening or token in _SENTENCE_END
            previous = None
            continue
        if token[0].isupper() and token.lower() not in STOP_WORDS:
            if not run:
                run_opens = opening
                cue = previous
            run.append(token.rstrip("."))
        else:
            # A lower-case word, or "The", "I", "We": not part of a name.
            close()
        opening = False
        previous = token.lower()
    close()
    return spans


def _name_kind(name: str, cue: str | None, known: frozenset[str]) -> EntityKind:
    norm = normalise(name)
    if norm in known:
        return EntityKind.PERSON
    if norm.rsplit(" ", 1)[-1] in _ORG_WORDS:
        return EntityKind.ORGANIZATION
    if cue in _PLACE_CUES:
        return EntityKind.PLACE
    return EntityKind.THING


def _date_name(unit: Unit, moment: date) -> str:
    if unit is Unit.MONTH:
        return month(moment)
    if unit is Unit.YEAR:
        return str(moment.year)
    return day(moment)


def extract_entities(
    speaker: str, text: str, ts: datetime, known_names: Iterable[str] = ()
) -> list[EntityMention]:
    """The entities one message mentions, each once, speaker first.

    ``known_names`` are names known to be people (the conversation's speakers).
    """
    known = frozenset(normalise(n) for n in (speaker, *known_names) if n)
    found: dict[str, EntityMention] = {}

    def add(name: str, kind: EntityKind) -> None:
        cleaned = _EDGE_PUNCT.sub("", _POSSESSIVE.sub("", _SPACES.sub(" ", name.strip())))
        norm = normalise(cleaned)
        if _usable(norm) and norm not in found:
            found[norm] = EntityMention(norm=norm, name=cleaned, kind=kind)

    add(speaker, EntityKind.PERSON)
    rest = text
    for found_date in sorted(find_relative_dates(text, ts), key=lambda d: d.start, reverse=True):
        # The expression is not a keyword: "last month" is no thing.
        rest = f"{rest[: found_date.start]},{rest[found_date.end :]}"
        if found_date.unit not in (Unit.WEEK, Unit.WEEKEND):  # a week has no name people use
            add(_date_name(found_date.unit, found_date.day), EntityKind.DATE)
    spans = _capitalised_spans(text, known)
    for name, cue in spans:
        add(name, _name_kind(name, cue, known))
    # Names found are cut out before looking for keyword phrases, so no
    # phrase straddles one ("visit central park", "melanie kids").
    for name, _ in spans:
        rest = re.sub(rf"\b{re.escape(name)}(?:['’]s)?\b", ",", rest)
    for phrase in keywords([rest], limit=KEYWORDS_PER_MESSAGE):
        add(phrase, EntityKind.THING)
    return list(found.values())


def query_norms(query: str) -> list[str]:
    """Every name a query might mean, normalised: phrases of up to three content words.

    Liberal on purpose: the walk keeps only the names the user's graph holds.
    Names and dates come first, then phrases, shortest first: the walk looks
    up a bounded number, and a long question has dozens of phrases.
    """
    norms: dict[str, None] = {}
    for name, _ in _capitalised_spans(query, frozenset()):
        norm = normalise(name)
        if _usable(norm):
            norms[norm] = None
    for match in _WRITTEN_DATE.finditer(query):
        norms[normalise(match.group())] = None
    phrases = candidate_phrases(query, max_words=3)
    for phrase in sorted(phrases, key=lambda p: len(p.split())):
        norm = normalise(phrase)
        if _usable(norm):
            norms[norm] = None
    return list(norms)


def message_mentions(message: Message, known_names: Iterable[str] = ()) -> Mentions:
    """The entities a stored message mentions, for its owner."""
    return Mentions(
        label="Message",
        node_id=message.id,
        user_id=message.user_id,
        entities=tuple(
            extract_entities(message.speaker, message.content, message.local_ts, known_names)
        ),
    )


def written_mentions(memories: Sequence[Memory], user_name: str) -> list[Mentions]:
    """The entities of memories written directly (an API call, an agent's ops).

    No one said them, so there is no speaker; the user's name is a known person.
    """
    return [memory_mentions(m, "", (user_name,)) for m in memories]


def memory_mentions(memory: Memory, speaker: str, known_names: Iterable[str] = ()) -> Mentions:
    """The entities a memory mentions: those of its text, said by ``speaker``."""
    return Mentions(
        label="Memory",
        node_id=memory.id,
        user_id=memory.user_id,
        entities=tuple(extract_entities(speaker, memory.content, memory.created_at, known_names)),
    )


def renaming(
    before: str, after: str, original: str, ts: datetime, known_names: Iterable[str] = ()
) -> tuple[tuple[EntityMention, ...], tuple[str, ...]]:
    """What a memory's new text changes in the entities it is found through.

    A memory is linked to the entities its original text names that its
    present text still names: a fuzzed text that no longer says "Boston" is
    not found through Boston, a restored one is again, and the words of a
    fainter wording ("the user once had memories about") name nothing.
    Returns the entities to link (named by ``after``, not by ``before``) and
    the norms to unlink (named by ``before``, not by ``after``). ``ts`` is the
    memory's time, which relative dates are read against, as when it was
    written. The texts are read knowing only ``known_names`` (the user's),
    not the conversation's speakers as memorize knew them: a speaker's link
    that did not come from the text stays, one whose name the text said and
    no longer says goes, a name opening a sentence is read only if it is
    known, and an entity made again on a restore may come back as a thing
    rather than a person.
    """
    names = {m.norm for m in extract_entities("", original, ts, known_names)}
    was = {m.norm for m in extract_entities("", before, ts, known_names)} & names
    now = [m for m in extract_entities("", after, ts, known_names) if m.norm in names]
    kept = {m.norm for m in now}
    return tuple(m for m in now if m.norm not in was), tuple(sorted(was - kept))
