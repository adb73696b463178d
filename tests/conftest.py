"""Shared fixtures: one embedded ArcadeDB and one model per test run, a fresh database per test.

The JVM can start once per process, so the embedded server lives for the whole
session and every test gets its own database in it. The contract suite also
runs against Neo4j when ``HIPPOGRAPH_TEST_NEO4J_URI`` is set (skipped, and
reported, otherwise).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from graph.embedded import EmbeddedArcadeDB
from graph.maintenance import clear_database
from graph.store import GraphConnection, GraphStore, connect
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.settings import EmbeddingSettings, GraphSettings
from tests.llm.stub_server import StubLLMServer

NEO4J_URI = os.environ.get("HIPPOGRAPH_TEST_NEO4J_URI")
MODEL = "all-MiniLM-L6-v2"
DIMENSIONS = 384
# One ONNX export of the model for the whole run, shared by every runtime and
# every child process (serve, worker) the tests start: exporting costs
# seconds, and each test's fresh data directory would otherwise do it again.
MODEL_CACHE = Path(tempfile.mkdtemp(prefix="hippograph-test-models-"))
os.environ["HIPPOGRAPH_EMBEDDING__CACHE_DIR"] = str(MODEL_CACHE)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove the run's model cache."""
    shutil.rmtree(MODEL_CACHE, ignore_errors=True)


@pytest.fixture
def stub() -> Iterator[StubLLMServer]:
    """A fresh scripted chat-completions server (the only test double: no LLM is reachable)."""
    server = StubLLMServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def arcade(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedArcadeDB]:
    """The embedded ArcadeDB server of this test run (stopped at the end, always)."""
    server = EmbeddedArcadeDB(tmp_path_factory.mktemp("arcadedb"), heap="2g")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
async def embedder() -> SentenceTransformerEmbedder:
    """The real all-MiniLM-L6-v2, loaded once."""
    return await SentenceTransformerEmbedder.load(EmbeddingSettings(cache_dir=MODEL_CACHE))


def fresh_database_name() -> str:
    """A name no database of the shared embedded server has yet."""
    return "t" + uuid.uuid4().hex[:16]


@pytest.fixture
def database_name(arcade: EmbeddedArcadeDB) -> Iterator[str]:
    """A fresh database in the embedded server, dropped after the test."""
    name = fresh_database_name()
    yield name
    arcade.drop_database(name)


async def _open(
    request: pytest.FixtureRequest, arcade: EmbeddedArcadeDB, tmp_path: Path
) -> GraphConnection:
    if request.param == "neo4j":
        if not NEO4J_URI:
            pytest.skip("Neo4j contract run: set HIPPOGRAPH_TEST_NEO4J_URI (and _USER, _PASSWORD)")
        settings = GraphSettings(
            server="neo4j",
            uri=NEO4J_URI,
            user=os.environ.get("HIPPOGRAPH_TEST_NEO4J_USER", "neo4j"),
            password=os.environ.get("HIPPOGRAPH_TEST_NEO4J_PASSWORD", "password"),
            database=os.environ.get("HIPPOGRAPH_TEST_NEO4J_DATABASE", "neo4j"),
        )
        connection = await connect(settings)
        await clear_database(connection.store.graph)
        return connection
    name = fresh_database_name()
    connection = await connect(GraphSettings(data_dir=tmp_path), embedded=arcade, database=name)
    request.addfinalizer(lambda: arcade.drop_database(name))
    return connection


@pytest.fixture(params=["arcadedb", "neo4j"])
async def store(
    request: pytest.FixtureRequest, arcade: EmbeddedArcadeDB, tmp_path: Path
) -> AsyncIterator[GraphStore]:
    """A store with schema and indexes in place, on each backend of the contract suite."""
    connection = await _open(request, arcade, tmp_path)
    try:
        await connection.store.setup(model=MODEL, dimensions=DIMENSIONS)
        yield connection.store
    finally:
        await connection.close()
