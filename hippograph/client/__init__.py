"""A typed Python client for HippoGraph's GraphQL API: ``HippoGraph`` and ``AsyncHippoGraph``.

It needs only ``httpx`` (it imports nothing from the server side)::

    from hippograph.client import HippoGraph, NewMessage

    with HippoGraph("http://127.0.0.1:8000", key) as hg:
        hg.memorize("alice", session_id, [NewMessage("alice", "I moved to Lisbon.")])
        for hit in hg.search("alice", "where does Alice live?").hits:
            print(hit.score, hit.memory.content if hit.memory else None)

See docs/client.md.
"""

from __future__ import annotations

from hippograph.client.async_client import AsyncHippoGraph
from hippograph.client.enums import (
    Direction,
    EdgeType,
    ForgetAction,
    ForgetPolicy,
    HardDeleteStrategy,
    JobKind,
    JobStatus,
    MemoryCategory,
    MemoryKind,
    MemoryLevel,
    MemoryOpKind,
    MemorySource,
    Role,
    ScoringStrategy,
    SearchMethod,
    SearchMode,
    SearchTarget,
)
from hippograph.client.errors import (
    BadUserInput,
    Conflict,
    Forbidden,
    HippoGraphError,
    InvalidOperation,
    JobFailed,
    JobTimeout,
    NotFound,
    RateLimited,
    ServerError,
    Unauthenticated,
    Unavailable,
)
from hippograph.client.inputs import MemoryFilter, MemoryOp, NewMessage, Scoring
from hippograph.client.job_results import (
    ForgetChange,
    ForgetCounts,
    ForgetReport,
    ForgetResult,
    Job,
    JobCounts,
    LevelMove,
    MemorizeResult,
    ReflectResult,
    TokenUsage,
)
from hippograph.client.results import (
    ApiKey,
    Memory,
    MemoryDeleted,
    MemoryOpResult,
    MemoryOpsResult,
    MemoryPage,
    MemUnit,
    Message,
    Provenance,
    ProvenanceEdge,
    ProvenanceNode,
    ProvenancePath,
    ScoreBreakdown,
    SearchHit,
    SearchResult,
    Session,
    TimePeriod,
    User,
    Viewer,
)
from hippograph.client.sync_client import HippoGraph

__all__ = [
    "ApiKey",
    "AsyncHippoGraph",
    "BadUserInput",
    "Conflict",
    "Direction",
    "EdgeType",
    "Forbidden",
    "ForgetAction",
    "ForgetChange",
    "ForgetCounts",
    "ForgetPolicy",
    "ForgetReport",
    "ForgetResult",
    "HardDeleteStrategy",
    "HippoGraph",
    "HippoGraphError",
    "InvalidOperation",
    "Job",
    "JobCounts",
    "JobFailed",
    "JobKind",
    "JobStatus",
    "JobTimeout",
    "LevelMove",
    "MemUnit",
    "MemorizeResult",
    "Memory",
    "MemoryCategory",
    "MemoryDeleted",
    "MemoryFilter",
    "MemoryKind",
    "MemoryLevel",
    "MemoryOp",
    "MemoryOpKind",
    "MemoryOpResult",
    "MemoryOpsResult",
    "MemoryPage",
    "MemorySource",
    "Message",
    "NewMessage",
    "NotFound",
    "Provenance",
    "ProvenanceEdge",
    "ProvenanceNode",
    "ProvenancePath",
    "RateLimited",
    "ReflectResult",
    "Role",
    "ScoreBreakdown",
    "Scoring",
    "ScoringStrategy",
    "SearchHit",
    "SearchMethod",
    "SearchMode",
    "SearchResult",
    "SearchTarget",
    "ServerError",
    "Session",
    "TimePeriod",
    "TokenUsage",
    "Unauthenticated",
    "Unavailable",
    "User",
    "Viewer",
]
