"""The offline extractor: the LLM port, implemented with sentence selection and rules.

Deterministic and free: it needs only the message vectors the pipeline has
already computed. What it makes of a MemUnit:

* summary — the most central informative message (closest to the unit's mean
  vector, weighed by importance), attributed to its speaker;
* narrative — the informative messages in order, each as "<speaker> said: …",
  opened by the date and the participants; relative times get their dates;
* subject and keywords — the best candidate phrases (``keywords.py``);
* one episode per user, with that narrative;
* one memory per informative message, in its speaker's dated words: a
  semantic fact where the message states a preference, plan or personal
  detail in the first person that scores at least the keep threshold
  (note 001 keeps ≥ 0.7), else an event-log item (never both: see
  :meth:`OfflineExtractor._facts`);
* profile attributes from first-person patterns ("my name is", "I live in",
  "I work as", "my favourite X is", "I'm allergic to", 我叫, 我住在, …).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hippograph.background import in_background
from hippograph.extraction.importance import features, importance
from hippograph.extraction.keywords import keywords
from hippograph.extraction.profile_values import clean_value
from hippograph.extraction.relative_time import day, resolve_relative_times
from hippograph.extraction.schema import (
    FACT_LIMIT,
    Episode,
    Extraction,
    ExtractionRequest,
    Fact,
    ProfileAttribute,
    UnitMessage,
)
from hippograph.extraction.small_talk import is_small_talk
from hippograph.fuzzing import FuzzRequest, FuzzText, offline_fuzz
from hippograph.reflection import ReflectionRequest, ReflectionSummary, offline_summary
from hippograph.vector_math import cosine, mean

GIST_LIMIT = 120  # characters of a turn an episode tells
_SENTENCES = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")
_PROFILE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (attribute, re.compile(pattern, re.IGNORECASE))
    for attribute, pattern in (
        ("name", r"\bmy name is ([A-Z][\w'-]+(?: [A-Z][\w'-]+)?)"),
        ("age", r"\bI(?:'m| am) (\d{1,3}) years? old\b"),
        ("job", r"\bI work as (?:a |an )?([\w -]{3,40}?)(?:[.,!?]|$| at | in )"),
        ("employer", r"\bI work (?:at|for) ([A-Z][\w&' -]{1,40}?)(?:[.,!?]|$| as )"),
        ("city", r"\bI (?:live|moved) (?:in|to) ([A-Z][\w' -]{1,40}?)(?:[.,!?]|$| with | for )"),
        ("allergy", r"\bI(?:'m| am) allergic to ([\w ,-]{2,40}?)(?:[.!?]|$)"),
        ("pet", r"\bI have an? (dog|cat|puppy|kitten|parrot|rabbit|hamster)\b"),
        ("name", r"我叫([\u4e00-\u9fff]{1,4})"),
        ("city", r"我住在([\u4e00-\u9fff]{2,8})"),
        ("likes", r"我(?:很|最)?喜欢([\u4e00-\u9fff]{1,10})"),
    )
)
_FAVOURITE = re.compile(r"\bmy favou?rite ([a-z]+) is ([\w' -]{2,40}?)(?:[.,!?]|$)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class OfflineRules:
    """Thresholds of the offline extractor."""

    keep_fact: float = 0.7  # note 001
    # Event items log what was said; only small talk (which scores 0, or is
    # only courtesies: small_talk.py) is dropped, because a question may hinge
    # on a turn no feature finds remarkable.
    keep_event: float = 0.05
    # The features are a rough guess at an event's importance: it is shrunk
    # halfway toward the neutral 0.5, so it nudges ranking instead of
    # overruling relevance (facts, which pass a 0.7 bar, keep theirs).
    event_shrink: float = 0.5
    narrative_messages: int = 10


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text) if s.strip()]


def _quote(message: UnitMessage) -> str:
    return resolve_relative_times(message.text, message.ts)


def _gist(message: UnitMessage, most: int = GIST_LIMIT) -> str:
    """The message's most telling sentence, times resolved, cut at a word past ``most``."""
    sentences = _sentences(message.text) or [message.text]
    best = max(sentences, key=lambda s: (importance(s), -sentences.index(s)))
    told = resolve_relative_times(best, message.ts)
    if len(told) <= most:
        return told
    cut = told[:most]
    return (cut[: cut.rfind(" ")] if " " in cut else cut).rstrip(" ,;:") + "…"


def event_contents(message: UnitMessage, limit: int = FACT_LIMIT) -> list[str]:
    """Event-log items: ``On 7 May 2023, Caroline said: “…”`` with times resolved.

    One item per message, unless the message is too long for one memory
    (messages may hold 8,000 characters, a memory 2,000): then the quote is
    split at sentence ends (else at spaces) into parts that each fit, and
    each item says which part it is, so nothing the speaker said is lost.
    """
    opening = f"On {day(message.ts)}, {message.speaker[:200]} said"
    quote = _quote(message)
    whole = f"{opening}: “{quote}”"
    if len(whole) <= limit:
        return [whole]
    # Room for the opening, " (part 99 of 99): ", and the quotation marks.
    room = limit - len(opening) - 24
    parts = _pieces(quote, room)
    return [f"{opening} (part {i} of {len(parts)}): “{part}”" for i, part in enumerate(parts, 1)]


def _pieces(text: str, room: int) -> list[str]:
    """``text`` cut into pieces of at most ``room`` characters, at sentence ends or spaces."""
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCES.split(text):
        words = [sentence] if len(sentence) <= room else sentence.split(" ")
        for word in words:
            while len(word) > room:  # a "word" longer than a piece: cut it
                if current:
                    pieces.append(current)
                    current = ""
                pieces.append(word[:room])
                word = word[room:]
            joined = f"{current} {word}" if current else word
            if len(joined) <= room:
                current = joined
            else:
                pieces.append(current)
                current = word
    if current.strip():
        pieces.append(current)
    return [p.strip() for p in pieces if p.strip()]


class OfflineExtractor:
    """An ``LLM`` that needs no language model."""

    name = "offline"

    def __init__(self, rules: OfflineRules | None = None) -> None:
        self.rules = rules or OfflineRules()

    async def extract(
        self, request: ExtractionRequest, vectors: Sequence[Sequence[float]] | None = None
    ) -> Extraction:
        """Everything the unit yields; ``vectors`` are the messages' embeddings."""
        # Rules over every sentence: CPU work, done off the event loop.
        return await in_background(self.extract_now, request, vectors)

    def extract_now(
        self, request: ExtractionRequest, vectors: Sequence[Sequence[float]] | None = None
    ) -> Extraction:
        """:meth:`extract`, blocking the calling thread."""
        messages = request.messages
        scores = [importance(m.text) for m in messages]
        centrality = self._centrality(vectors) if vectors else [1.0] * len(messages)
        best = max(range(len(messages)), key=lambda i: (scores[i] * centrality[i], -i))
        summary = f"{messages[best].speaker}: {_quote(messages[best])}"
        informative = [
            i
            for i, s in enumerate(scores)
            if s >= self.rules.keep_event and not is_small_talk(messages[i].text)
        ]
        told = sorted(
            sorted(informative, key=lambda i: -scores[i])[: self.rules.narrative_messages]
        ) or [best]
        speakers = list(dict.fromkeys(m.speaker for m in messages))
        words = keywords([m.text for m in messages])
        subject = ", ".join(words[:3]) or summary[:80]
        opening = f"On {day(messages[0].ts)}, {_join(speakers)} talked"
        opening += f" about {subject}." if words else "."
        narrative = " ".join(
            [opening] + [f"{messages[i].speaker} said: “{_quote(messages[i])}”" for i in told]
        )
        # The episode tells the unit in brief: each told turn by its most
        # telling sentence, not re-quoted whole (the events hold the words).
        gist = " ".join([opening] + [f"{messages[i].speaker}: {_gist(messages[i])}" for i in told])
        owners = self._owners(request)
        profile = self._profile(request)
        profiled = {i for attribute in profile for i in attribute.message_indices}
        facts = self._facts(request, scores, informative, owners, profiled)
        return Extraction(
            summary=summary[:2000],
            narrative=narrative[:8000],
            subject=subject[:300],
            keywords=words,
            episodes=[
                Episode(user_id=user_id, title=subject[:300], narrative=gist[:8000])
                for user_id in request.users
            ],
            facts=facts,
            profile=profile,
        )

    async def reflect(self, request: ReflectionRequest) -> ReflectionSummary:
        """An extractive reflection: the theme's keywords, then its facts."""
        return offline_summary(request)

    async def fuzz(self, request: FuzzRequest) -> FuzzText:
        """The memory's most telling clause (summary) or key phrases (tag), and its topic."""
        return offline_fuzz(request)

    @staticmethod
    def _centrality(vectors: Sequence[Sequence[float]]) -> list[float]:
        centre = mean(vectors)
        return [max(0.0, cosine(v, centre)) for v in vectors]

    @staticmethod
    def _owners(request: ExtractionRequest) -> dict[str, list[str]]:
        """Whose memory each speaker's words become: their own user, else every user."""
        named = _speakers_who_are_users(request)
        return {m.speaker: named.get(m.speaker, list(request.users)) for m in request.messages}

    def _facts(
        self,
        request: ExtractionRequest,
        scores: Sequence[float],
        informative: Sequence[int],
        owners: dict[str, list[str]],
        profiled: set[int],
    ) -> list[Fact]:
        """One memory per informative message: a fact where it states one, else an event.

        Without a model a fact cannot be put in other words, so a message
        that states a preference, plan or personal detail is stored once, as
        a semantic memory in its speaker's dated words (with the fact's
        importance and topic), and not a second time as an event: a copy
        would add nothing but a near-duplicate to every result list.
        """
        facts: list[Fact] = []
        for i in informative:
            message = request.messages[i]
            stated = [
                found
                for sentence in _sentences(message.text)
                if (found := features(sentence)).first_person
                and (found.preference or found.personal or found.vital)
                and found.score >= self.rules.keep_fact
            ]
            best = max(stated, key=lambda found: found.score, default=None)
            event_importance = round(0.5 + self.rules.event_shrink * (scores[i] - 0.5), 4)
            fact_importance = best.score if best is not None else event_importance
            if best is None and message.index in profiled:
                # A profile attribute is a personal detail whatever it scores
                # ("My favorite team is Inter-Milan", said in passing); it
                # keeps the importance it had as an event (a floor of 0.7
                # cost recall@10 0.004 on LoCoMo dev).
                best = replace(features(message.text), personal=True)
            for user_id in owners[message.speaker]:
                facts.extend(
                    Fact(
                        user_id=user_id,
                        kind="event",
                        content=content,
                        importance=event_importance,
                        message_indices=[message.index],
                    )
                    if best is None
                    else Fact(
                        user_id=user_id,
                        kind="semantic",
                        content=content,
                        importance=fact_importance,
                        message_indices=[message.index],
                        topic="preference" if best.preference and not best.vital else "personal",
                        quoted=True,
                    )
                    for content in event_contents(message)
                )
        return facts

    @staticmethod
    def _profile(request: ExtractionRequest) -> list[ProfileAttribute]:
        found: dict[tuple[str, str], ProfileAttribute] = {}
        # Only a user's own words describe them: another speaker's "I live in
        # Denver" (a friend, the assistant) is remembered as what they said,
        # never as the user's city, though their words go to every user.
        named = _speakers_who_are_users(request)
        for message in request.messages:
            users = named.get(message.speaker)
            if not users:
                continue
            for attribute, value in profile_values(message.text):
                key = (users[0], attribute)
                found[key] = ProfileAttribute(
                    user_id=users[0],
                    attribute=attribute[:41],
                    value=value[:300],
                    message_indices=[message.index],
                )
        return list(found.values())


def _speakers_who_are_users(request: ExtractionRequest) -> dict[str, list[str]]:
    """The speakers whose name or id is one of the request's users', with that user."""
    by_name = {name.lower(): user_id for user_id, name in request.users.items()}
    by_name |= {user_id.lower(): user_id for user_id in request.users}
    return {
        m.speaker: [by_name[m.speaker.lower()]]
        for m in request.messages
        if m.speaker.lower() in by_name
    }


def profile_values(text: str) -> list[tuple[str, str]]:
    """The profile attributes ``text`` states in the first person, values cleaned."""
    raw = [
        (attribute, match[1])
        for attribute, pattern in _PROFILE_PATTERNS
        if (match := pattern.search(text))
    ]
    if favourite := _FAVOURITE.search(text):
        raw.append((f"favourite_{favourite[1].lower()}", favourite[2]))
    # "I moved to a new flat": no city named, no value.
    return [(a, v) for a, raw_value in raw if (v := clean_value(a, raw_value)) is not None]


def _join(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
