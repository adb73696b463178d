"""The schema's enums, as Python string enums (a test checks they match schema.graphql)."""

from __future__ import annotations

from enum import StrEnum


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


class MemoryCategory(StrEnum):
    """Decay class: system and core never decay."""

    SYSTEM = "SYSTEM"
    CORE = "CORE"
    FACT = "FACT"
    EPISODE = "EPISODE"


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


class JobKind(StrEnum):
    """What a job does."""

    MEMORIZE = "MEMORIZE"
    REFLECT = "REFLECT"
    FORGET = "FORGET"


class JobStatus(StrEnum):
    """Where a job is; SUCCEEDED and FAILED are final."""

    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"

    @property
    def final(self) -> bool:
        """Whether the job has finished, well or not."""
        return self in (JobStatus.SUCCEEDED, JobStatus.FAILED)


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


class ScoringStrategy(StrEnum):
    """How relevance, recency and importance combine."""

    WEIGHTED = "WEIGHTED"
    MULTIPLICATIVE = "MULTIPLICATIVE"
    RRF = "RRF"


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


class MemoryOpKind(StrEnum):
    """An agent's memory operation."""

    ADD = "ADD"
    UPDATE = "UPDATE"
    BOOST = "BOOST"
    DELETE = "DELETE"
    SKIP = "SKIP"


class ForgetPolicy(StrEnum):
    """FUZZ never deletes; SOFT_DELETE marks faded memories deleted; HARD_DELETE removes."""

    FUZZ = "FUZZ"
    SOFT_DELETE = "SOFT_DELETE"
    HARD_DELETE = "HARD_DELETE"


class HardDeleteStrategy(StrEnum):
    """What HARD_DELETE removes."""

    IMPORTANCE_BASED = "IMPORTANCE_BASED"
    TIME_BASED = "TIME_BASED"
    CAPACITY_BASED = "CAPACITY_BASED"


class ForgetAction(StrEnum):
    """What a forget run does to one memory."""

    FUZZ = "FUZZ"
    RESTORE = "RESTORE"
    PROMOTE = "PROMOTE"
    SOFT_DELETE = "SOFT_DELETE"
    HARD_DELETE = "HARD_DELETE"


class EntityKind(StrEnum):
    """What an entity is, as far as a cheap reading can tell."""

    PERSON = "PERSON"
    PLACE = "PLACE"
    ORGANIZATION = "ORGANIZATION"
    THING = "THING"
    DATE = "DATE"
