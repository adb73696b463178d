"""Use cases: what the API and the jobs can ask of HippoGraph.

Each service declares, beside itself, the Protocol of what it needs from the
graph; the composition root (``hippograph.wiring``) hands it the store's
concern object, which satisfies that Protocol structurally.
"""

from __future__ import annotations

from dataclasses import dataclass

from hippograph.services.cascade import CascadeService
from hippograph.services.entities import EntityService
from hippograph.services.forgetting import ForgetService
from hippograph.services.job_runner import JobRunner
from hippograph.services.jobs import JobService
from hippograph.services.keys import KeyService
from hippograph.services.live import LiveService
from hippograph.services.memories import MemoryService
from hippograph.services.memorize import MemorizeService
from hippograph.services.memory_ops import MemoryOpsService
from hippograph.services.messages import MessageService
from hippograph.services.provenance import ProvenanceService
from hippograph.services.reflection import ReflectionService
from hippograph.services.search import SearchService
from hippograph.services.user_deletion import UserDeletionService
from hippograph.services.users import UserService


@dataclass(frozen=True)
class Services:
    """Every use case, wired."""

    users: UserService
    messages: MessageService
    memories: MemoryService
    search: SearchService
    provenance: ProvenanceService
    keys: KeyService
    jobs: JobService
    job_runner: JobRunner
    memorize: MemorizeService
    memory_ops: MemoryOpsService
    cascade: CascadeService
    user_deletion: UserDeletionService
    reflection: ReflectionService
    forgetting: ForgetService
    entities: EntityService
    live: LiveService
