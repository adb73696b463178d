"""Use cases: what the API and the jobs can ask of HippoGraph."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from hippograph.clock import Clock
from hippograph.ports import (
    LLM,
    CascadeStore,
    Embedder,
    ForgetStore,
    IngestStore,
    KeyStore,
    MemoryOpsStore,
    MemoryStore,
    MemUnitStore,
    MessageStore,
    ProvenanceStore,
    ReflectionStore,
    SearchStore,
    UserStore,
)
from hippograph.services.cascade import CascadeService
from hippograph.services.forgetting import ForgetService
from hippograph.services.job_payloads import JobHandlers
from hippograph.services.job_runner import JobObserver, JobRunner
from hippograph.services.jobs import JobQueue, JobService, JobStore
from hippograph.services.keys import KeyService
from hippograph.services.memories import MemoryService
from hippograph.services.memorize import MemorizeService
from hippograph.services.memory_ops import MemoryOpsService
from hippograph.services.messages import MessageService
from hippograph.services.provenance import ProvenanceService
from hippograph.services.reflection import ReflectionService
from hippograph.services.search import SearchService
from hippograph.services.turns import TurnMemoryService
from hippograph.services.users import UserService
from hippograph.settings import Settings


@dataclass(frozen=True)
class Stores:
    """The store ports the services are built on."""

    users: UserStore
    messages: MessageStore
    memunits: MemUnitStore
    memories: MemoryStore
    search: SearchStore
    provenance: ProvenanceStore
    keys: KeyStore
    ingest: IngestStore
    jobs: JobStore
    memory_ops: MemoryOpsStore
    cascade: CascadeStore
    reflection: ReflectionStore
    forgetting: ForgetStore


@dataclass(frozen=True)
class Services:
    """Every use case, wired."""

    users: UserService
    messages: MessageService
    memories: MemoryService
    search: SearchService
    provenance: ProvenanceService
    keys: KeyService
    turns: TurnMemoryService
    jobs: JobService
    job_runner: JobRunner
    memorize: MemorizeService
    memory_ops: MemoryOpsService
    cascade: CascadeService
    reflection: ReflectionService
    forgetting: ForgetService

    @classmethod
    def build(
        cls,
        stores: Stores,
        embedder: Embedder,
        llm: LLM,
        clock: Clock,
        settings: Settings,
        queue: JobQueue,
        observer: JobObserver | None = None,
    ) -> Services:
        """Wire the services over ``stores``; submitted jobs go to ``queue``.

        ``observer`` is told about every job this process runs (metrics).
        """
        limits = settings.limits
        users = UserService(stores.users, clock, limits)
        messages = MessageService(stores.messages, users, clock, limits)
        jobs = JobService(stores.jobs, queue, clock)
        reflection = ReflectionService(
            stores.reflection, stores.users, users, embedder, llm, jobs, clock, settings.reflection
        )
        memorize = MemorizeService(
            messages,
            users,
            stores.users,
            stores.ingest,
            embedder,
            llm,
            jobs,
            clock,
            settings.memorize,
            limits,
            after_facts=reflection.submit if settings.memorize.reflect_after_write else None,
        )
        forgetting = ForgetService(
            stores.forgetting, stores.users, users, embedder, llm, jobs, clock, settings.forgetting
        )
        job_runner = JobRunner(
            stores.jobs,
            JobHandlers(memorize, reflection, forgetting),
            clock,
            timedelta(seconds=settings.jobs.timeout_s),
            observer,
        )
        admin_key = settings.api.admin_key.get_secret_value() if settings.api.admin_key else None
        return cls(
            users=users,
            messages=messages,
            memories=MemoryService(
                stores.memories, stores.messages, stores.memunits, users, embedder, clock, limits
            ),
            search=SearchService(
                stores.search,
                stores.memories,
                stores.memunits,
                users,
                embedder,
                clock,
                settings.search,
                limits,
            ),
            provenance=ProvenanceService(stores.provenance, limits),
            keys=KeyService(stores.keys, clock, admin_key, settings.api.key_cache_ttl_s),
            turns=TurnMemoryService(stores.messages, stores.memories, users, embedder, clock),
            jobs=jobs,
            job_runner=job_runner,
            memorize=memorize,
            memory_ops=MemoryOpsService(
                stores.memories, stores.memory_ops, users, embedder, clock, limits
            ),
            cascade=CascadeService(stores.cascade),
            reflection=reflection,
            forgetting=forgetting,
        )
