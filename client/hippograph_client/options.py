"""Optional arguments of the client's methods, typed once for both clients.

Each is a ``TypedDict`` the methods take as ``**options``; a member left out
keeps the server's default (the client restates none of them).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TypedDict

from hippograph_client.enums import (
    ForgetPolicy,
    HardDeleteStrategy,
    MemoryCategory,
    MemoryKind,
    MemorySource,
    SearchMethod,
    SearchMode,
    SearchTarget,
)
from hippograph_client.inputs import MemoryFilter, NewMessage, Scoring


class SearchOptions(TypedDict, total=False):
    """``search``: how many hits, by which method, scored and filtered how."""

    top_k: int
    method: SearchMethod
    scoring: Scoring
    mode: SearchMode
    filter: MemoryFilter
    candidates: int
    radius: float
    touch: bool
    target: SearchTarget


class MemorizeOptions(TypedDict, total=False):
    """``memorize``: context turns, grouping, and whether the server queues a job.

    ``queue`` is the API's ``async``: True returns a job at once; left out,
    the server queues only large inputs.
    """

    history: Sequence[NewMessage]
    group_id: str
    source_type: str
    flush: bool
    queue: bool


class MemoryOptions(TypedDict, total=False):
    """``add_memory``: what the memory is, and what it was derived from."""

    kind: MemoryKind
    importance: float
    category: MemoryCategory
    domain: str
    session_id: str
    derived_from: Sequence[str]
    source: MemorySource
    verified: bool
    valid_from: datetime
    valid_to: datetime
    client_id: str


class MemoryEdit(TypedDict, total=False):
    """``update_memory``: new content supersedes the memory; other fields change in place."""

    content: str
    importance: float
    category: MemoryCategory
    domain: str
    verified: bool


class ForgetOptions(TypedDict, total=False):
    """``forget``: the policy and its parameters; ``queue`` (the API's ``async``) makes it a job."""

    policy: ForgetPolicy
    dry_run: bool
    strategy: HardDeleteStrategy
    threshold: float
    max_age_days: float
    max_capacity: int
    memory_ids: Sequence[str]
    queue: bool
