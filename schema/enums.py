"""GraphQL enums, registered straight from the domain enums (one source of truth).

``strawberry.enum`` marks the class itself, so the names below are the domain
classes and can be used both as annotations and as values.
"""

from __future__ import annotations

import strawberry

from hippograph.models import (
    Direction,
    EdgeType,
    EntityKind,
    MemoryCategory,
    MemoryKind,
    MemoryLevel,
    MemorySource,
    Role,
)
from hippograph.modes import SearchMode
from hippograph.scoring import ScoringStrategy, SearchMethod
from hippograph.services.memory_ops import MemoryOpKind
from hippograph.services.search import SearchTarget

strawberry.enum(MemoryKind, description="What a memory is.")
strawberry.enum(MemoryLevel, description="How sharp a memory still is (full → archive).")
strawberry.enum(MemoryCategory, description="Decay class: system and core never decay.")
strawberry.enum(MemorySource, description="Who wrote a memory.")
strawberry.enum(Role, description="The role of a message's speaker.")
strawberry.enum(EdgeType, description="Relationship types of the graph.")
strawberry.enum(Direction, description="DOWN toward raw messages, UP toward what was derived.")
strawberry.enum(SearchMethod, description="Where search candidates come from.")
strawberry.enum(ScoringStrategy, description="How relevance, recency and importance combine.")
strawberry.enum(
    SearchMode, description="NORMAL: full and summary levels; REVIEW: all; AUTO: by the query."
)
strawberry.enum(SearchTarget, description="What a search returns.")
strawberry.enum(EntityKind, description="What an entity is, as far as a cheap reading can tell.")
strawberry.enum(
    MemoryOpKind,
    description="ADD a memory; UPDATE one (supersede); BOOST its importance by 0.3; "
    "DELETE it (soft unless hard); SKIP (nothing, recorded for the agent's log).",
)

__all__ = [
    "Direction",
    "EdgeType",
    "EntityKind",
    "MemoryCategory",
    "MemoryKind",
    "MemoryLevel",
    "MemoryOpKind",
    "MemorySource",
    "Role",
    "ScoringStrategy",
    "SearchMethod",
    "SearchMode",
    "SearchTarget",
]
