"""The store: one driver, one dialect, and the per-concern graph modules over them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from dataclasses import dataclass, field

from neo4j import AsyncGraphDatabase

from graph import embedding_meta
from graph.cascade import CascadeGraph
from graph.dialect import ArcadeDBDialect, IndexDialect, Neo4jDialect
from graph.driver import GraphDriver
from graph.dump import DumpGraph
from graph.embedded import EmbeddedArcadeDB
from graph.embedding_meta import StoredVectors, VectorModel
from graph.entities import EntityGraph
from graph.forgetting import ForgetGraph
from graph.ingest import IngestGraph
from graph.jobs import JobGraph, PayloadCodec
from graph.keys import KeyGraph
from graph.memories import MemoryGraph
from graph.memory_ops import MemoryOpsGraph
from graph.memunits import MemUnitGraph
from graph.messages import MessageGraph
from graph.provenance import ProvenanceGraph
from graph.reflection import ReflectionGraph
from graph.reindex import ReindexGraph
from graph.retry import RetryPolicy
from graph.search import SearchGraph
from graph.setup import ensure_schema, rebuild_vector_indexes
from graph.stats import StatsGraph
from graph.user_deletion import UserDeletionGraph
from graph.users import UserGraph
from hippograph.errors import ConfigError
from hippograph.settings import GraphSettings

log = logging.getLogger(__name__)


@dataclass
class GraphStore:
    """Everything the services need from the graph, grouped by concern."""

    graph: GraphDriver
    dialect: IndexDialect
    job_codec: PayloadCodec
    users: UserGraph = field(init=False)
    messages: MessageGraph = field(init=False)
    memunits: MemUnitGraph = field(init=False)
    memories: MemoryGraph = field(init=False)
    search: SearchGraph = field(init=False)
    provenance: ProvenanceGraph = field(init=False)
    keys: KeyGraph = field(init=False)
    ingest: IngestGraph = field(init=False)
    jobs: JobGraph = field(init=False)
    memory_ops: MemoryOpsGraph = field(init=False)
    cascade: CascadeGraph = field(init=False)
    user_deletion: UserDeletionGraph = field(init=False)
    reflection: ReflectionGraph = field(init=False)
    forgetting: ForgetGraph = field(init=False)
    dump: DumpGraph = field(init=False)
    stats: StatsGraph = field(init=False)
    entities: EntityGraph = field(init=False)
    reindex: ReindexGraph = field(init=False)

    def __post_init__(self) -> None:
        self.users = UserGraph(self.graph)
        self.messages = MessageGraph(self.graph)
        self.memunits = MemUnitGraph(self.graph)
        self.memories = MemoryGraph(self.graph)
        self.search = SearchGraph(self.graph, self.dialect)
        self.provenance = ProvenanceGraph(self.graph)
        self.keys = KeyGraph(self.graph)
        self.ingest = IngestGraph(self.graph)
        self.jobs = JobGraph(self.graph, self.job_codec)
        self.memory_ops = MemoryOpsGraph(self.graph)
        self.cascade = CascadeGraph(self.graph)
        self.user_deletion = UserDeletionGraph(self.graph)
        self.reflection = ReflectionGraph(self.graph)
        self.forgetting = ForgetGraph(self.graph)
        self.dump = DumpGraph(self.graph)
        self.stats = StatsGraph(self.graph)
        self.entities = EntityGraph(self.graph)
        self.reindex = ReindexGraph(self.graph)

    async def setup(
        self,
        *,
        model: str,
        dimensions: int,
        precision: str = "float32",
        known_as: Collection[str] = (),
    ) -> StoredVectors:
        """Create constraints and indexes (idempotent) for vectors of ``model``; what the
        graph records of its vectors. See :mod:`graph.setup` and :mod:`graph.embedding_meta`."""
        running = VectorModel(model, dimensions, precision)
        return await ensure_schema(self.graph, self.dialect, running=running, known_as=known_as)

    async def rebuild_vector_indexes(self) -> int:
        """Rebuild both vector indexes with the current settings (see :mod:`graph.setup`)."""
        return await rebuild_vector_indexes(self.graph, self.dialect)

    async def vectors(self) -> StoredVectors | None:
        """What the graph records of its vectors' model; None for a graph never set up."""
        return await embedding_meta.read(self.graph)

    async def begin_reindex(self, target: VectorModel, run: str) -> None:
        """Record that run ``run`` re-embeds everything with ``target``, and drop the vector
        indexes: every vector is about to be written anew, faster without them."""
        await embedding_meta.begin_reindex(self.graph, target, run)
        await self.dialect.drop_vector_indexes(self.graph)

    async def finish_reindex(self, run: str, dimensions: int) -> None:
        """Make run ``run``'s model the graph's and build the vector indexes for it."""
        await embedding_meta.finish_reindex(self.graph, run)
        await self.dialect.ensure_search_indexes(self.graph, dimensions)


@dataclass
class GraphConnection:
    """An open store and, in embedded mode, the server behind it."""

    store: GraphStore
    embedded: EmbeddedArcadeDB | None = None
    owns_embedded: bool = False

    async def close(self) -> None:
        """Close the driver, then stop the embedded server if this connection started it."""
        try:
            await self.store.graph.close()
        finally:
            if self.embedded is not None and self.owns_embedded:
                self.embedded.stop()  # on this (the main) thread: see graph.embedded


async def connect(
    settings: GraphSettings,
    *,
    job_codec: PayloadCodec,
    embedded: EmbeddedArcadeDB | None = None,
    database: str | None = None,
) -> GraphConnection:
    """Open the graph that ``settings`` describe.

    ``job_codec`` stores job payloads (``hippograph.services.job_payloads``).
    In embedded mode the server is started here (unless a running one is
    passed in, as tests do) and the database is created if it is missing.
    """
    name = database or settings.database
    password = settings.password.get_secret_value() if settings.password else None
    if settings.server == "arcadedb" and settings.embedded:
        owns = embedded is None
        server = embedded or EmbeddedArcadeDB(
            settings.data_dir, heap=settings.heap, password=password
        )
        try:
            # On the loop's thread, blocking for a second or two at start-up:
            # Java must only be called from the main thread (see graph.embedded).
            endpoints = server.start()
            await asyncio.to_thread(server.create_database, name)
        except BaseException:
            if owns:
                server.stop()
            raise
        uri, http_url = endpoints.bolt_uri, endpoints.http_url
        user, password = endpoints.user, endpoints.password
        dialect: IndexDialect = ArcadeDBDialect(
            http_url, user, password, name, settings.vector_ef_search
        )
        return GraphConnection(
            _store(uri, user, password, name, settings, dialect, job_codec), server, owns
        )
    if not settings.uri:
        raise ConfigError("HIPPOGRAPH_GRAPH__URI is not set")
    if password is None:
        raise ConfigError("HIPPOGRAPH_GRAPH__PASSWORD is not set")
    user = settings.effective_user
    if settings.server == "arcadedb":
        assert settings.http_url is not None  # checked by GraphSettings
        dialect = ArcadeDBDialect(
            settings.http_url, user, password, name, settings.vector_ef_search
        )
    else:
        dialect = Neo4jDialect()
    return GraphConnection(_store(settings.uri, user, password, name, settings, dialect, job_codec))


def _store(
    uri: str,
    user: str,
    password: str,
    database: str,
    settings: GraphSettings,
    dialect: IndexDialect,
    job_codec: PayloadCodec,
) -> GraphStore:
    driver = AsyncGraphDatabase.driver(
        uri,
        auth=(user, password),
        max_connection_pool_size=settings.max_connection_pool_size,
        connection_timeout=settings.connection_timeout_s,
        connection_acquisition_timeout=settings.connection_timeout_s,
        # Retries are GraphDriver's (RetryPolicy): the driver's would hold a
        # request for 15 s when the server is simply gone.
        max_transaction_retry_time=0.0,
        notifications_min_severity="OFF",
    )
    retry = RetryPolicy(settings.transaction_retry_s, settings.unavailable_retry_s)
    # ArcadeDB refuses a commit whose pages another transaction changed (every
    # Memory shares a few buckets), so concurrent writes of this process took
    # turns by failing: a large write lost to small ones until its retries ran
    # out. Taking turns in order, they never collide (graph/driver.py).
    serial = settings.server == "arcadedb"
    return GraphStore(
        GraphDriver(driver, database, retry, serial_writes=serial), dialect, job_codec
    )
