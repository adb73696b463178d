"""The schema's enums, as Python string enums."""

# Written by `python -m codegen` from schema.graphql: edit that, then run it again.

from __future__ import annotations

from enum import StrEnum


class Direction(StrEnum):
    """DOWN toward raw messages, UP toward what was derived."""

    DOWN = "DOWN"
    UP = "UP"


class EdgeType(StrEnum):
    """Relationship types of the graph."""

    HAS_SESSION = "HAS_SESSION"
    HAS_MESSAGE = "HAS_MESSAGE"
    DERIVED_FROM = "DERIVED_FROM"
    SUMMARIZES = "SUMMARIZES"
    SUPERSEDES = "SUPERSEDES"
    MENTIONS = "MENTIONS"


class EntityKind(StrEnum):
    """What an entity is, as far as a cheap reading can tell."""

    PERSON = "PERSON"
    PLACE = "PLACE"
    ORGANIZATION = "ORGANIZATION"
    THING = "THING"
    DATE = "DATE"


class ForgetAction(StrEnum):
    """What a forget run does to one memory."""

    FUZZ = "FUZZ"
    RESTORE = "RESTORE"
    PROMOTE = "PROMOTE"
    SOFT_DELETE = "SOFT_DELETE"
    HARD_DELETE = "HARD_DELETE"


class ForgetPolicy(StrEnum):
    """
    FUZZ (never deletes: memories move between levels), SOFT_DELETE (marks faded memories
    deleted), HARD_DELETE (removes them, by a strategy).
    """

    FUZZ = "FUZZ"
    SOFT_DELETE = "SOFT_DELETE"
    HARD_DELETE = "HARD_DELETE"


class HardDeleteStrategy(StrEnum):
    """
    What HARD_DELETE removes: importance below `threshold`, age above `maxAgeDays`, or
    everything beyond the `maxCapacity` most important memories.
    """

    IMPORTANCE_BASED = "IMPORTANCE_BASED"
    TIME_BASED = "TIME_BASED"
    CAPACITY_BASED = "CAPACITY_BASED"


class JobKind(StrEnum):
    """What a job does."""

    MEMORIZE = "MEMORIZE"
    REFLECT = "REFLECT"
    FORGET = "FORGET"


class JobStatus(StrEnum):
    """Where a job is: queued, running, succeeded, failed."""

    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"


class MemoryCategory(StrEnum):
    """Decay class: system and core never decay."""

    SYSTEM = "SYSTEM"
    CORE = "CORE"
    FACT = "FACT"
    EPISODE = "EPISODE"


class MemoryKind(StrEnum):
    """What a memory is."""

    EPISODIC = "EPISODIC"
    SEMANTIC = "SEMANTIC"
    PROFILE = "PROFILE"
    EVENT = "EVENT"
    REFLECTION = "REFLECTION"


class MemoryLevel(StrEnum):
    """How sharp a memory still is (full → archive)."""

    FULL = "FULL"
    SUMMARY = "SUMMARY"
    TAG = "TAG"
    TRACE = "TRACE"
    ARCHIVE = "ARCHIVE"


class MemoryOpKind(StrEnum):
    """
    ADD a memory; UPDATE one (supersede); BOOST its importance by 0.3; DELETE it (soft
    unless hard); SKIP (nothing, recorded for the agent's log).
    """

    ADD = "ADD"
    UPDATE = "UPDATE"
    BOOST = "BOOST"
    DELETE = "DELETE"
    SKIP = "SKIP"


class MemorySource(StrEnum):
    """Who wrote a memory."""

    USER = "USER"
    AGENT = "AGENT"
    EXTRACTION = "EXTRACTION"
    REFLECTION = "REFLECTION"
    SYSTEM = "SYSTEM"
    IMPORT = "IMPORT"


class Role(StrEnum):
    """The role of a message's speaker."""

    USER = "USER"
    ASSISTANT = "ASSISTANT"
    SYSTEM = "SYSTEM"
    TOOL = "TOOL"


class ScoringStrategy(StrEnum):
    """How relevance, recency and importance combine."""

    WEIGHTED = "WEIGHTED"
    MULTIPLICATIVE = "MULTIPLICATIVE"
    RRF = "RRF"


class SearchMethod(StrEnum):
    """Where search candidates come from."""

    KEYWORD = "KEYWORD"
    VECTOR = "VECTOR"
    HYBRID = "HYBRID"


class SearchMode(StrEnum):
    """NORMAL: full and summary levels; REVIEW: all; AUTO: by the query."""

    NORMAL = "NORMAL"
    REVIEW = "REVIEW"
    AUTO = "AUTO"


class SearchTarget(StrEnum):
    """What a search returns."""

    MEMORY = "MEMORY"
    MEMUNIT = "MEMUNIT"
