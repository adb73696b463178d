"""What extraction returns for one MemUnit, validated (a model's JSON answer is checked against
``answer_schema`` first, then flattened into this)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from hippograph.ports import Usage

# The longest memory a fact may become (a message may be four times longer).
FACT_LIMIT = 2000


class UnitMessage(BaseModel):
    """One message of a MemUnit, as an extractor sees it."""

    model_config = ConfigDict(frozen=True)

    index: int
    speaker: str
    text: str
    ts: datetime


class ExtractionRequest(BaseModel):
    """A MemUnit to understand, with who is who."""

    model_config = ConfigDict(frozen=True)

    messages: tuple[UnitMessage, ...]
    history: tuple[UnitMessage, ...] = ()
    # user id -> the name that user appears under as a speaker
    users: dict[str, str]
    language: str = "en"
    # user id -> the profile on record (attribute -> value), for a model to update
    profiles: dict[str, dict[str, str]] = Field(default_factory=dict)


class Episode(BaseModel):
    """One user's account of the unit: a third-person narrative with absolute dates."""

    user_id: str
    title: str = Field(max_length=300)
    narrative: str = Field(min_length=1, max_length=8000)


class Fact(BaseModel):
    """An atomic statement worth remembering: a semantic fact or an event-log item."""

    user_id: str
    kind: str = Field(pattern="^(semantic|event)$")
    content: str = Field(min_length=1, max_length=FACT_LIMIT)
    importance: float = Field(ge=0.0, le=1.0)
    message_indices: list[int] = Field(default_factory=list)
    topic: str | None = Field(default=None, max_length=64)
    # The speaker's own words, dated (the offline extractor's facts, which it
    # cannot paraphrase): keyed, embedded and re-embedded as its message's turn.
    quoted: bool = False


class ProfileAttribute(BaseModel):
    """A profile attribute of a user stated in the unit (name, job, city, likes, ...)."""

    user_id: str
    attribute: str = Field(pattern=r"^[a-z][a-z0-9_]{0,40}$")
    value: str = Field(min_length=1, max_length=300)
    message_indices: list[int] = Field(default_factory=list)


class Extraction(BaseModel):
    """Everything extracted from one MemUnit."""

    summary: str = Field(min_length=1, max_length=2000)
    narrative: str = Field(min_length=1, max_length=8000)
    subject: str = Field(max_length=300)
    keywords: list[str] = Field(default_factory=list, max_length=30)
    episodes: list[Episode] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    profile: list[ProfileAttribute] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
