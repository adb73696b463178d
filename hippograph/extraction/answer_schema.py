"""The JSON a model answers an extraction in, and its schema for servers that constrain output.

OpenAI, vLLM and llama.cpp accept ``response_format: {"type": "json_schema"}``
and then cannot answer anything else: no missing field, no wrong name, no
prose. The answer is grouped by user (``{"users": {id: {episode, facts,
profile}}}``) so that a schema can require exactly one account per user and
forbid any other user id: a small model (Qwen2.5 0.5B) answering a flat list
gave one user two episodes and the other none. Every string and list has a
bound, sized to the unit, so a small local model cannot ramble for minutes
(on a CPU every output token costs tens of milliseconds); only what a model
must write is asked for (the unit's narrative is its users' accounts joined).
:func:`as_extraction` turns an answer into the flat ``Extraction`` the rest
of memorize reads. Lengths are in characters; the prompts say the same.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from hippograph.extraction.schema import (
    FACT_LIMIT,
    Episode,
    Extraction,
    Fact,
    ProfileAttribute,
)

SUMMARY_CHARS = 400
EPISODE_CHARS = 600
FACT_CHARS = 300
PROFILE_VALUE_CHARS = 120
MAX_KEYWORDS = 8
MAX_FACTS = 8  # per user
MAX_PROFILE = 4  # per user
MAX_INDICES = 12


class AnswerEpisode(BaseModel):
    """The unit from one user's side."""

    title: str = Field(max_length=300)
    narrative: str = Field(min_length=1, max_length=8000)


class AnswerFact(BaseModel):
    """A fact about the user it is filed under."""

    kind: str = Field(pattern="^(semantic|event)$")
    content: str = Field(min_length=1, max_length=FACT_LIMIT)
    importance: float = Field(ge=0.0, le=1.0)
    message_indices: list[int] = Field(default_factory=list)
    topic: str | None = Field(default=None, max_length=64)


class AnswerAttribute(BaseModel):
    """A profile attribute of the user it is filed under."""

    attribute: str = Field(pattern=r"^[a-z][a-z0-9_]{0,40}$")
    value: str = Field(min_length=1, max_length=300)
    message_indices: list[int] = Field(default_factory=list)


class AnswerUser(BaseModel):
    """Everything the unit says about one user."""

    # Required by the schema; a server without one may leave it out.
    episode: AnswerEpisode | None = None
    facts: list[AnswerFact] = Field(default_factory=list)
    profile: list[AnswerAttribute] = Field(default_factory=list)


class ExtractionAnswer(BaseModel):
    """A model's answer for one unit, as the prompt and the schema ask for it."""

    summary: str = Field(min_length=1, max_length=2000)
    subject: str = Field(max_length=300)
    keywords: list[str] = Field(default_factory=list, max_length=30)
    users: dict[str, AnswerUser]


def as_extraction(answer: ExtractionAnswer) -> Extraction:
    """The flat ``Extraction`` of an answer; the unit's narrative is its users' accounts."""
    episodes, facts, profile = [], [], []
    for user_id, said in answer.users.items():
        if said.episode is not None:
            episodes.append(Episode(user_id=user_id, **said.episode.model_dump()))
        facts += [Fact(user_id=user_id, **f.model_dump()) for f in said.facts]
        profile += [ProfileAttribute(user_id=user_id, **p.model_dump()) for p in said.profile]
    narrative = " ".join(e.narrative for e in episodes)[:8000] or answer.summary
    return Extraction(
        summary=answer.summary,
        narrative=narrative,
        subject=answer.subject,
        keywords=answer.keywords,
        episodes=episodes,
        facts=facts,
        profile=profile,
    )


def _text(max_chars: int, min_chars: int = 1) -> dict[str, Any]:
    return {"type": "string", "minLength": min_chars, "maxLength": max_chars}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _list(items: dict[str, Any], max_items: int, min_items: int = 0) -> dict[str, Any]:
    return {"type": "array", "items": items, "minItems": min_items, "maxItems": max_items}


def extraction_schema(user_ids: list[str], messages: int) -> dict[str, Any]:
    """The answer's schema for a unit of ``messages`` messages: one entry per user id."""
    indices = _list({"type": "integer"}, MAX_INDICES, 1)
    fact = _object(
        {
            "kind": {"type": "string", "enum": ["semantic", "event"]},
            "content": _text(FACT_CHARS),
            "importance": {"type": "number", "minimum": 0, "maximum": 1},
            "message_indices": indices,
            "topic": _text(40, 0),
        }
    )
    attribute = _object(
        {
            "attribute": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,40}$"},
            "value": _text(PROFILE_VALUE_CHARS),
            "message_indices": indices,
        }
    )
    user = _object(
        {
            "episode": _object({"title": _text(120), "narrative": _text(EPISODE_CHARS)}),
            # A fact or two per message at most: a small model otherwise
            # repeats one fact until the list is full.
            "facts": _list(fact, min(MAX_FACTS, messages + 1)),
            "profile": _list(attribute, min(MAX_PROFILE, messages)),
        }
    )
    return _object(
        {
            "summary": _text(SUMMARY_CHARS),
            "subject": _text(120),
            "keywords": _list(_text(40), MAX_KEYWORDS),
            "users": _object(dict.fromkeys(user_ids, user)),
        }
    )


def summary_schema(max_chars: int) -> dict[str, Any]:
    """A reflection's or a fuzzed memory's schema: its text and its topic."""
    return _object({"content": _text(max_chars), "topic": _text(60, 0)})
