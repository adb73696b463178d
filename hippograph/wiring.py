"""The composition of the use cases: every service, built over the graph's concerns.

This is the one place that knows both sides: each service declares the
Protocol of what it needs beside itself (``hippograph/services/``), and the
store's concern objects (``graph.store.GraphStore``) satisfy them
structurally, which mypy checks here. Adding a store method therefore means
the graph module, the Protocol and the service that calls it; nothing here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from graph.store import GraphStore
from hippograph.broadcast import LocalBroadcast
from hippograph.clock import Clock
from hippograph.events import Announcer, EventBus
from hippograph.ports import LLM, Embedder
from hippograph.services import Services
from hippograph.services.cascade import CascadeService
from hippograph.services.entities import EntityService
from hippograph.services.forgetting import ForgetService
from hippograph.services.job_payloads import JobHandlers
from hippograph.services.job_runner import JobObserver, JobRunner
from hippograph.services.jobs import JobQueue, JobService
from hippograph.services.keys import KeyService
from hippograph.services.live import LiveService
from hippograph.services.memories import MemoryService
from hippograph.services.memorize import MemorizeService
from hippograph.services.memory_ops import MemoryOpsService
from hippograph.services.messages import MessageService
from hippograph.services.provenance import ProvenanceService
from hippograph.services.reflection import ReflectionService
from hippograph.services.said_before import SaidBefore
from hippograph.services.search import SearchService
from hippograph.services.user_deletion import UserDeletionService
from hippograph.services.users import UserService
from hippograph.settings import Settings


def build_services(
    store: GraphStore,
    embedder: Embedder,
    llm: LLM,
    clock: Clock,
    settings: Settings,
    queue: JobQueue,
    observer: JobObserver | None = None,
    bus: EventBus | None = None,
    unpublished: Callable[[], None] | None = None,
) -> Services:
    """Wire the services over ``store``; submitted jobs go to ``queue``.

    ``observer`` is told about every job this process runs (metrics). Job
    changes and new memories are published on ``bus`` (by default one of
    this process only); ``unpublished`` is told of each event that could
    not be (metrics).
    """
    limits = settings.limits
    bus = bus if bus is not None else LocalBroadcast()
    events = Announcer(bus, unpublished=unpublished)
    users = UserService(store.users, clock, limits)
    messages = MessageService(store.messages, users, clock, limits)
    jobs = JobService(store.jobs, queue, clock, events)
    reflection = ReflectionService(
        store.reflection,
        store.users,
        users,
        embedder,
        llm,
        jobs,
        clock,
        settings.reflection,
        events,
    )
    memorize = MemorizeService(
        messages,
        users,
        store.users,
        store.ingest,
        embedder,
        llm,
        jobs,
        clock,
        settings.memorize,
        limits,
        # after facts are written: queue a reflect run for their user
        reflection.submit if settings.memorize.reflect_after_write else None,
        events,
        SaidBefore(store.search, store.memories, clock, settings.search),
    )
    forgetting = ForgetService(
        store.forgetting,
        store.users,
        users,
        embedder,
        llm,
        jobs,
        clock,
        settings.forgetting,
        settings.memorize.entities,
    )
    job_runner = JobRunner(
        store.jobs,
        JobHandlers(memorize, reflection, forgetting),
        clock,
        timedelta(seconds=settings.jobs.lease_s),
        timedelta(seconds=settings.jobs.timeout_s),
        observer,
        events,
        settings.jobs.max_tries,
    )
    admin_key = settings.api.admin_key.get_secret_value() if settings.api.admin_key else None
    memories = MemoryService(
        store.memories,
        store.messages,
        store.memunits,
        users,
        embedder,
        clock,
        limits,
        events,
        settings.memorize.entities,
    )
    cascade = CascadeService(store.cascade)
    return Services(
        users=users,
        messages=messages,
        memories=memories,
        search=SearchService(
            store.search,
            store.memories,
            store.memunits,
            users,
            embedder,
            clock,
            settings.search,
            limits,
            store.entities,
        ),
        provenance=ProvenanceService(store.provenance, limits),
        keys=KeyService(store.keys, clock, admin_key, settings.api.key_cache_ttl_s),
        jobs=jobs,
        job_runner=job_runner,
        memorize=memorize,
        memory_ops=MemoryOpsService(
            store.memories,
            store.memory_ops,
            users,
            embedder,
            clock,
            limits,
            events,
            settings.memorize.entities,
        ),
        cascade=cascade,
        user_deletion=UserDeletionService(store.user_deletion, users, cascade),
        reflection=reflection,
        forgetting=forgetting,
        entities=EntityService(store.entities, users, limits),
        live=LiveService(bus, jobs, memories, users),
    )
