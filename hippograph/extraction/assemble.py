"""From one MemUnit's extraction to graph records, with deterministic ids.

Pure: the caller has already embedded each message once (its turn text), and
those vectors are reused wherever the record's text is made of the messages:
a MemUnit gets the centroid of its messages, an event item the blend of its
message with the one before (as turn memories do). Texts that are new
(episodes' narratives, semantic facts, profile attributes) are left to
embed, in one batch for the whole request. The ingest throughput target is
near the model's own speed, so every text embedded twice would show.

Ids derive from what a record is, so a replay or a second run of a job
finds, rather than duplicates, what the first one wrote.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from hippograph import text
from hippograph.entities import memory_mentions, message_mentions
from hippograph.extraction.schema import Extraction, UnitMessage
from hippograph.ids import IdKind, derived_id
from hippograph.models import (
    Memory,
    MemoryCategory,
    MemoryKind,
    MemorySource,
    MemUnit,
    Mentions,
    Message,
    Sources,
)
from hippograph.querytime import dated
from hippograph.turns import CONTEXT_WEIGHT, blend, turn_content
from hippograph.vector_math import mean, unit


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """A memory ready to write but for its vector: given, or ``embed_text`` to embed."""

    memory: Memory
    search_text: str
    sources: Sources
    vector: list[float] | None = None
    embed_text: str | None = None


@dataclass(frozen=True, slots=True)
class UnitDraft:
    """A MemUnit, its vector, its messages and the memories drawn from it."""

    unit: MemUnit
    vector: list[float]
    search_text: str
    message_ids: tuple[str, ...]
    memories: tuple[MemoryDraft, ...]
    # the entities the unit's messages and memories mention (empty when off)
    mentions: tuple[Mentions, ...] = ()


def memunit_id(message_ids: Sequence[str]) -> str:
    """The id of the MemUnit made of exactly these messages."""
    return derived_id(IdKind.MEMUNIT, "unit", *message_ids)


def unit_messages(messages: Sequence[Message], start: int = 0) -> tuple[UnitMessage, ...]:
    """The extractor's view of a run of messages, indexed from ``start`` (a unit's
    from 0; the history before it counts up to -1, so a citation of it names no
    message of the unit)."""
    return tuple(
        UnitMessage(index=start + i, speaker=m.speaker, text=m.content, ts=m.local_ts)
        for i, m in enumerate(messages)
    )


def centroid(vectors: Sequence[Sequence[float]]) -> list[float]:
    """The normalised mean of ``vectors``."""
    return unit(mean(vectors))


@dataclass(frozen=True, slots=True)
class UnitContext:
    """What a unit is assembled with besides its extraction."""

    messages: Sequence[Message]
    vectors: Sequence[Sequence[float]]
    # the turn before the unit's first message, when there is one (its context)
    before: tuple[Message, Sequence[float]] | None
    user_names: Mapping[str, str]
    group_id: str | None
    source_type: str
    # When the memories are made: retention counts from here (or a later
    # recall), never from the conversation's older dates.
    learned_at: datetime
    # How much of the turn before goes into an event's vector (hippograph.turns).
    context_weight: float = CONTEXT_WEIGHT
    # Whether the unit's messages and memories get entity mentions.
    entities: bool = True


def assemble(extraction: Extraction, context: UnitContext) -> UnitDraft:
    """The records one unit's extraction becomes."""
    messages = context.messages
    message_ids = tuple(m.id for m in messages)
    unit_id = memunit_id(message_ids)
    vector = centroid(context.vectors)
    first = messages[0]
    unit = MemUnit(
        id=unit_id,
        user_ids=tuple(context.user_names),
        session_id=first.session_id,
        summary=extraction.summary,
        narrative=extraction.narrative,
        subject=extraction.subject,
        ts=first.ts,
        source_type=context.source_type,
        group_id=context.group_id,
        participants=tuple(dict.fromkeys(m.speaker for m in messages)),
        keywords=tuple(extraction.keywords),
    )
    drafts: list[MemoryDraft] = []
    for episode in extraction.episodes:
        memory = _memory(
            # A unit replayed word for word tells the same episode.
            derived_id(
                IdKind.MEMORY, "episode", episode.user_id, restatement_key(episode.narrative)
            ),
            episode.user_id,
            MemoryKind.EPISODIC,
            episode.narrative,
            0.5,
            first,
            context.learned_at,
        )
        # Its own text, not the unit's centroid: a centroid of twelve turns
        # sits near the middle of the embedding space, close to every query
        # (with e5-small, episodes took half the top-10 slots, each standing
        # for a whole unit: docs/decisions/2026-11-26-e5-default-model.md).
        drafts.append(
            MemoryDraft(
                memory=memory,
                search_text=text.search_text(episode.narrative),
                sources=Sources(memunit_ids=(unit_id,)),
                embed_text=episode.narrative,
            )
        )
    for fact in extraction.facts:
        sources = _cited(fact.message_indices, messages)
        at = sources[0]
        if fact.kind == "event" or fact.quoted:
            # The speaker's words: an event, or a fact the offline extractor
            # could not put in other words (and stored instead of an event).
            content = fact.content
            event = fact.kind == "event"
            kind, prefix = (MemoryKind.EVENT, "event") if event else (MemoryKind.SEMANTIC, "fact")
            memory = _memory(
                # Said again, by the same speaker to the same user, it is the
                # same memory: the new message becomes one more of its sources.
                derived_id(IdKind.MEMORY, prefix, fact.user_id, restatement_key(content)),
                fact.user_id,
                kind,
                content,
                fact.importance,
                at,
                context.learned_at,
                topic=fact.topic,
            )
            own, previous = _turn_vectors(at, context)
            before_text = _before_text(at, context)
            drafts.append(
                MemoryDraft(
                    memory=memory,
                    search_text=text.search_text(f"{before_text} {content}".strip()),
                    sources=Sources(
                        message_ids=tuple(m.id for m in sources), memunit_ids=(unit_id,)
                    ),
                    vector=(
                        blend(own, centroid([previous, own]), context.context_weight)
                        if previous
                        else list(own)
                    ),
                )
            )
        else:
            memory = _memory(
                derived_id(IdKind.MEMORY, "fact", fact.user_id, fact.content.lower()),
                fact.user_id,
                MemoryKind.SEMANTIC,
                fact.content,
                fact.importance,
                at,
                context.learned_at,
                topic=fact.topic,
            )
            drafts.append(_own_text_draft(memory, sources, unit_id))
    for attribute in extraction.profile:
        sources = _cited(attribute.message_indices, messages)
        name = context.user_names.get(attribute.user_id, attribute.user_id)
        content = f"{name}'s {attribute.attribute.replace('_', ' ')}: {attribute.value}"
        memory = _memory(
            derived_id(
                IdKind.MEMORY,
                "profile",
                attribute.user_id,
                attribute.attribute,
                attribute.value.lower(),
            ),
            attribute.user_id,
            MemoryKind.PROFILE,
            content,
            0.8,
            sources[0],
            context.learned_at,
            topic=attribute.attribute,
        )
        drafts.append(_own_text_draft(memory, sources, unit_id))
    memories = tuple(merged(drafts))
    return UnitDraft(
        unit=unit,
        vector=vector,
        search_text=text.search_text(f"{extraction.subject} {extraction.narrative}"),
        message_ids=message_ids,
        memories=memories,
        mentions=_mentions(context, memories) if context.entities else (),
    )


def _mentions(context: UnitContext, memories: Sequence[MemoryDraft]) -> tuple[Mentions, ...]:
    """What each message and memory of the unit mentions.

    A message: its speaker and what its text names. A memory: what its own
    text names, said by the speaker of its first source message (an episode:
    the unit's first).
    """
    messages = context.messages
    known = tuple(dict.fromkeys([*context.user_names.values(), *(m.speaker for m in messages)]))
    by_id = {m.id: m for m in messages}
    out = [message_mentions(message, known) for message in messages]
    for draft in memories:
        sources = [by_id[i] for i in draft.sources.message_ids if i in by_id] or list(messages)
        out.append(memory_mentions(draft.memory, sources[0].speaker, known))
    return tuple(m for m in out if m.entities)


def _cited(indices: Sequence[int], messages: Sequence[Message]) -> list[Message]:
    """The unit's messages an item cites by index (a model may cite ones that are not
    there: dropped), or the unit's first when it cites none of them."""
    return [messages[i] for i in indices if 0 <= i < len(messages)] or [messages[0]]


def _own_text_draft(memory: Memory, sources: Sequence[Message], unit_id: str) -> MemoryDraft:
    """A memory searched and embedded by its own text, drawn from ``sources`` of the unit."""
    return MemoryDraft(
        memory=memory,
        search_text=text.search_text(memory.content),
        sources=Sources(message_ids=tuple(m.id for m in sources), memunit_ids=(unit_id,)),
        embed_text=memory.content,
    )


def _memory(
    memory_id: str,
    user_id: str,
    kind: MemoryKind,
    content: str,
    importance: float,
    at: Message,
    learned_at: datetime,
    topic: str | None = None,
) -> Memory:
    # A memory is as old as what it remembers: time filters and provenance
    # mean the conversation's time, not the import's. But it was last brought
    # to mind when it was learned: retention (note 001: from the last access)
    # starts there, so importing years of history does not fade it at once.
    # Its period is read on the speaker's clock, as its text was dated
    # (unit_messages): "yesterday" at 20:00 -07:00 is the speaker's day before.
    return dated(
        Memory(
            id=memory_id,
            user_id=user_id,
            kind=kind,
            content=content,
            importance=round(importance, 4),
            created_at=at.ts,
            last_accessed_at=max(learned_at, at.ts),
            category=MemoryCategory.EPISODE if kind is MemoryKind.EPISODIC else MemoryCategory.FACT,
            source=MemorySource.EXTRACTION,
            valid_from=at.ts if kind is MemoryKind.PROFILE else None,
            session_id=at.session_id,
            seq=at.seq,
            topic=topic,
        ),
        said=at.local_ts,
    )


def _turn_vectors(
    message: Message, context: UnitContext
) -> tuple[Sequence[float], Sequence[float] | None]:
    index = list(context.messages).index(message)
    own = context.vectors[index]
    if index > 0:
        return own, context.vectors[index - 1]
    return own, context.before[1] if context.before else None


def _before_text(message: Message, context: UnitContext) -> str:
    index = list(context.messages).index(message)
    if index > 0:
        return turn_content(context.messages[index - 1])
    return turn_content(context.before[0]) if context.before else ""


def merged(drafts: Sequence[MemoryDraft]) -> list[MemoryDraft]:
    """One draft per id, in first-seen order, derived from every message that stated it.

    The same fact stated twice (in one unit, or in two units of one memorize
    run: people repeat themselves) is one memory, and both statements are
    its sources; the first draft's text and vector stand.
    """
    seen: dict[str, MemoryDraft] = {}
    for draft in drafts:
        known = seen.get(draft.memory.id)
        if known is None:
            seen[draft.memory.id] = draft
            continue
        a, b = known.sources, draft.sources
        sources = Sources(
            message_ids=tuple(dict.fromkeys(a.message_ids + b.message_ids)),
            memunit_ids=tuple(dict.fromkeys(a.memunit_ids + b.memunit_ids)),
            memory_ids=tuple(dict.fromkeys(a.memory_ids + b.memory_ids)),
        )
        seen[draft.memory.id] = replace(known, sources=sources)
    return list(seen.values())


_OPENING_DATE = re.compile(r"^On [^,:“]{3,40}, ")
_NOT_WORD = re.compile(r"[\W_]+")
_QUOTE = re.compile(
    r"^On (?P<day>[^,:“]{3,40}), (?P<speaker>.{1,200}?) said"
    r"(?: \(part \d+ of \d+\))?: “(?P<words>.*)”$",
    re.DOTALL,
)


def is_quote(content: str) -> bool:
    """Whether ``content`` is a speaker's dated words (``On 7 May 2023, Sam said: “…”``)."""
    return _QUOTE.match(content) is not None


def quoted_words(content: str) -> str:
    """A speaker's dated words without their opening and quotation marks; any other
    content as it is."""
    quote = _QUOTE.match(content)
    return content if quote is None else quote["words"]


def quote_speaker(content: str) -> str | None:
    """Who said a speaker's dated words (their name as the opening gives it, at most
    200 characters); None for any other content."""
    quote = _QUOTE.match(content)
    return None if quote is None else quote["speaker"]


def unquoted(content: str) -> str:
    """A speaker's dated words as a summary tells them (``I love hiking (7 May 2023)``);
    any other content as it is."""
    if (quote := _QUOTE.match(content)) is None:
        return content
    return f"{quote['words'].rstrip('. ')} ({quote['day']})"


def restatement_key(content: str) -> str:
    """What makes two memories one: the text past its opening date, in lowercase,
    without punctuation ("On 8 May, Sam said: “Hi!”" and "On 9 May, Sam said:
    “hi”" are one)."""
    return _NOT_WORD.sub(" ", _OPENING_DATE.sub("", content).lower()).strip()
