"""The graph servers a test run uses, chosen with ``pytest --graph``.

``arcadedb`` (the default) is the embedded ArcadeDB, one per run, with a
database per test, copied from one set up at the start of the run.
``neo4j-5.26`` and ``neo4j-2026`` are Neo4j Community started by
:mod:`neo4j_launcher` in temporary stores of their own: Community has one
user database per server, so a test gets a server's ``neo4j`` database
emptied for it, and a test that needs two databases at once gets a second
server. Nothing outside those temporary stores is ever emptied.

Every suite asks for a :class:`TestDatabase` (fixture ``graph_db``) and
builds its settings, connections and child-process environments from it, so
the same test runs unchanged on each server.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import neo4j

from graph.embedded import EmbeddedArcadeDB
from graph.store import GraphConnection, connect
from hippograph.services import job_payloads
from hippograph.settings import GraphSettings
from neo4j_launcher.server import Neo4jServer

GRAPHS = ("arcadedb", "neo4j-5.26", "neo4j-2026")
NEO4J_RELEASES = {"neo4j-5.26": "5.26", "neo4j-2026": "2026"}

# The suite's JVMs live seconds (a served API a test kills) to minutes (a
# run's server), and two cores are its bound: compiled by C1 alone, without
# the optimising C2 compiler's work, a `hippograph serve` starts on about
# 5.6 s of CPU instead of 8.4, a Neo4j server on 9 instead of 14.5; the
# ArcadeDB run of the suite took 905 s of CPU instead of 1,099 and the Neo4j
# 5.26 run 166 s instead of 222 (two cores, 2026-11-28). Benchmarks keep the
# JVMs' defaults.
SHORT_LIVED_JVM = ("-XX:TieredStopAtLevel=1",)


@dataclass(frozen=True)
class TestDatabase:
    """One empty database of the run's server, and every way a test reaches it."""

    __test__ = False  # not a test class, whatever its name

    server: Literal["arcadedb", "neo4j"]
    name: str
    bolt_uri: str
    user: str
    password: str
    http_url: str | None = None
    embedded: EmbeddedArcadeDB | None = None

    def settings(self, data_dir: Path, **overrides: Any) -> GraphSettings:
        """Settings for this process: embedded ArcadeDB, or the Neo4j server over Bolt.

        With ArcadeDB, pass :attr:`embedded` to ``connect``/``Runtime.start``
        so the run's one server is reused.
        """
        if self.server == "arcadedb":
            return GraphSettings(data_dir=data_dir, database=self.name, **overrides)
        return self.remote_settings(data_dir, **overrides)

    def remote_settings(
        self, data_dir: Path, *, uri: str | None = None, **overrides: Any
    ) -> GraphSettings:
        """Settings that reach the server over the network, as another process would."""
        return GraphSettings(
            server=self.server,
            embedded=False,
            uri=uri or self.bolt_uri,
            http_url=self.http_url,
            user=self.user,
            password=self.password,
            database=self.name,
            data_dir=data_dir,
            **overrides,
        )

    def environment(self, data_dir: Path) -> dict[str, str]:
        """``HIPPOGRAPH_GRAPH__*`` variables of a child process (serve, worker, the CLI)."""
        env = {
            "SERVER": self.server,
            "EMBEDDED": "false",
            "URI": self.bolt_uri,
            "USER": self.user,
            "PASSWORD": self.password,
            "DATABASE": self.name,
            "DATA_DIR": str(data_dir),
        }
        if self.http_url:
            env["HTTP_URL"] = self.http_url
        return {f"HIPPOGRAPH_GRAPH__{key}": value for key, value in env.items()}

    @property
    def start(self) -> dict[str, Any]:
        """Keyword arguments of ``Runtime.start``/``create_app`` that reuse the run's server."""
        return {"embedded": self.embedded, "database": self.name}

    async def connect(self, data_dir: Path, **overrides: Any) -> GraphConnection:
        """An open connection to this database (schema not set up)."""
        return await connect(
            self.settings(data_dir, **overrides),
            job_codec=job_payloads,
            embedded=self.embedded,
            database=self.name,
        )

    @contextlib.asynccontextmanager
    async def connections(self, data_dir: Path, n: int = 2) -> AsyncIterator[list[GraphConnection]]:
        """``n`` connections to this database, one driver each, as ``n`` processes
        have (the race tests: a writer's lock or conflict is between them)."""
        opened = [await self.connect(data_dir) for _ in range(n)]
        try:
            yield opened
        finally:
            for connection in opened:
                await connection.close()

    async def failing_rounds(
        self,
        data_dir: Path,
        one_round: Callable[[list[GraphConnection], int], Awaitable[object]],
        rounds: int = 12,
    ) -> list[tuple[int, object]]:
        """Run ``one_round(connections, round_)`` ``rounds`` times over two
        :meth:`connections` (a race test's rounds: a race is lost only some of
        the time); the rounds that went wrong, with what ``one_round`` said of
        them. It answers None or False for a round that went right; anything
        else, even an empty list, is what went wrong."""
        wrong: list[tuple[int, object]] = []
        async with self.connections(data_dir) as connections:
            for round_ in range(rounds):
                said = await one_round(connections, round_)
                if said is not None and said is not False:
                    wrong.append((round_, said))
        return wrong


class GraphBackend(Protocol):
    """A run's graph server: hands out empty databases."""

    def database(
        self, *, pristine: bool = False
    ) -> contextlib.AbstractContextManager[TestDatabase]:
        """An empty database for one test, released (or dropped) afterwards.

        ``pristine`` also leaves it without constraints and indexes, as a
        graph never set up (a new ArcadeDB database always is).
        """
        ...

    def close(self) -> None:
        """Stop every server this backend started."""
        ...


@dataclass
class ArcadeBackend:
    """The embedded ArcadeDB: a database of its own per test, dropped after it.

    A test's database is a copy of one set up for the run's model, with the
    schema and no nodes, as a Neo4j test finds its server's database: making
    the schema anew cost 0.3-0.5 s a test (two thirds of an API test's set-up),
    a copy and the start-up's check of its schema 0.14 s
    (``bench/experiments/database_setup.py``).
    """

    embedded: EmbeddedArcadeDB
    _template: str | None = None

    def set_up_template(self, data_dir: Path, *, model: str, dimensions: int) -> ArcadeBackend:
        """Make the database every test's is copied from: set up for ``model``, then emptied
        (setting up records the model in a node), and closed. Call it with no event loop
        running, once per run."""
        template = self.database_named("template" + uuid.uuid4().hex[:8])
        self.embedded.create_database(template.name)
        asyncio.run(_set_up(template, data_dir, model, dimensions))
        auth = (template.user, template.password)
        with bolt_session(template.bolt_uri, auth, template.name) as session:
            session.run(_DELETE_NODES).consume()
        self.embedded.close_database(template.name)
        self._template = template.name
        return self

    def database_named(self, name: str) -> TestDatabase:
        """Every way a test reaches database ``name`` of this server."""
        endpoints = self.embedded.start()  # already running: its endpoints
        return TestDatabase(
            server="arcadedb",
            name=name,
            bolt_uri=endpoints.bolt_uri,
            user=endpoints.user,
            password=endpoints.password,
            http_url=endpoints.http_url,
            embedded=self.embedded,
        )

    @contextlib.contextmanager
    def database(self, *, pristine: bool = False) -> Iterator[TestDatabase]:
        """A database of its own, a copy of the template (a new one if ``pristine``, or
        before a template is set up), dropped afterwards."""
        name = "t" + uuid.uuid4().hex[:16]
        if self._template is None or pristine:
            self.embedded.create_database(name)
        else:
            self.embedded.clone_database(self._template, name)
        try:
            yield self.database_named(name)
        finally:
            self.embedded.drop_database(name)

    def close(self) -> None:
        """Stop the embedded server (on the main thread, as the JVM needs)."""
        self.embedded.stop()


async def _set_up(database: TestDatabase, data_dir: Path, model: str, dimensions: int) -> None:
    connection = await database.connect(data_dir)
    try:
        await connection.store.setup(model=model, dimensions=dimensions)
    finally:
        await connection.close()


# Test-only Cypher, on the launcher's own stores and ArcadeDB's template:
# empty the database, and (for a test that needs a graph never set up) drop
# its schema too.
_DELETE_ALL = "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS"
# ArcadeDB's template holds one node (the model's record): no batches needed.
_DELETE_NODES = "MATCH (n) DETACH DELETE n"
_CONSTRAINTS = "SHOW CONSTRAINTS YIELD name RETURN name"
_INDEXES = "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"


@dataclass
class Neo4jBackend:
    """Neo4j Community servers of one release, each lent to one test at a time."""

    release: str
    log_dir: Path
    _idle: list[Neo4jServer] = field(default_factory=list)
    _all: list[Neo4jServer] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Neo4jBackend:
        """Start the first server now, so its start-up is not charged to a test."""
        self._idle.append(self._new_server())
        return self

    def _new_server(self) -> Neo4jServer:
        index = len(self._all)
        server = Neo4jServer(
            self.release,
            log_path=self.log_dir / f"neo4j-{self.release}-{index}.log",
            jvm_options=SHORT_LIVED_JVM,
        ).start()
        self._all.append(server)
        return server

    @contextlib.contextmanager
    def database(self, *, pristine: bool = False) -> Iterator[TestDatabase]:
        """The ``neo4j`` database of a server no other test holds, emptied now.

        Its schema stays from test to test (made again for each, it would
        cost a second a test) unless the test asks for a ``pristine`` one.
        """
        with self._lock:
            server = self._idle.pop() if self._idle else None
        if server is None:
            server = self._new_server()
        try:
            empty(server, drop_schema=pristine)
            yield TestDatabase(
                server="neo4j",
                name="neo4j",
                bolt_uri=server.uri,
                user=server.user,
                password=server.password,
            )
            if pristine:
                # A test given a graph never set up may set it up otherwise (another
                # model's 512-dimension vector indexes): the next test gets none of it.
                empty(server, drop_schema=True)
        finally:
            with self._lock:
                self._idle.append(server)

    def close(self) -> None:
        """Stop every server."""
        for server in self._all:
            server.stop()


@contextlib.contextmanager
def bolt_session(uri: str, auth: tuple[str, str], database: str) -> Iterator[neo4j.Session]:
    """A session on ``database`` over Bolt, with a driver of its own."""
    with (
        neo4j.GraphDatabase.driver(uri, auth=auth) as driver,
        driver.session(database=database) as session,
    ):
        yield session


def empty(server: Neo4jServer, *, drop_schema: bool = False) -> None:
    """Delete every node and edge of a launcher's ``neo4j`` database, and its schema if asked."""
    with bolt_session(server.uri, (server.user, server.password), "neo4j") as session:
        session.run(_DELETE_ALL).consume()
        if drop_schema:
            for record in list(session.run(_CONSTRAINTS)):
                session.run("DROP CONSTRAINT $name", name=record["name"]).consume()
            for record in list(session.run(_INDEXES)):
                session.run("DROP INDEX $name", name=record["name"]).consume()
