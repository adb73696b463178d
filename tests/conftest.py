"""Shared fixtures: the run's graph server and one model, an empty database per test.

``pytest --graph arcadedb|neo4j-5.26|neo4j-2026`` chooses the server
(``tests/graphs.py``); the default is the embedded ArcadeDB, where every
test runs. Only ``graph/`` differs between servers, so a Neo4j run keeps
the store's contract suite (``tests/graph/``, a module per store) and the
tests marked ``every_server`` (one end-to-end topology, and the tests that
once caught a server's own bug), plus any ``only_on`` a Neo4j: the API, CLI,
jobs, MCP and end-to-end suites above the store run once, chosen by
directory (``CONTRACT``), not by a mark on each of their modules.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bench.local_llm import SMALL, running
from graph.embedded import EmbeddedArcadeDB
from graph.store import GraphStore
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.runtime import Runtime
from hippograph.settings import EmbeddingSettings, Settings
from tests.graphs import (
    GRAPHS,
    NEO4J_RELEASES,
    SHORT_LIVED_JVM,
    ArcadeBackend,
    GraphBackend,
    Neo4jBackend,
    TestDatabase,
)
from tests.llm.stub_server import StubLLMServer

# The default model, as the graph records it (tests' stores and runtimes must agree).
MODEL = EmbeddingSettings().model
DIMENSIONS = 384
# One ONNX export of the model for the whole run, shared by every runtime and
# every child process (serve, worker) the tests start: exporting costs
# seconds, and each test's fresh data directory would otherwise do it again.
MODEL_CACHE = Path(tempfile.mkdtemp(prefix="hippograph-test-models-"))
os.environ["HIPPOGRAPH_EMBEDDING__CACHE_DIR"] = str(MODEL_CACHE)
# The embedded ArcadeDB's JVM, here and in every child process, as short-lived
# JVMs (tests/graphs.py); the serial collector spares a few threads' start-up
# too. The package reads the variable when it starts the JVM; a value already
# in the environment is kept.
os.environ.setdefault("ARCADEDB_JVM_ARGS", " ".join((*SHORT_LIVED_JVM, "-XX:+UseSerialGC")))


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--graph``: the server this run's suites use."""
    parser.addoption(
        "--graph",
        choices=GRAPHS,
        default="arcadedb",
        help="graph server for every suite: embedded ArcadeDB (default) or a Neo4j release",
    )


def pytest_report_header(config: pytest.Config) -> str:
    """Name the server in the run's header, so a log says what it tested."""
    return f"graph server: {config.getoption('--graph')}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a Neo4j run, keep the store's contract suite and the ``every_server`` tests."""
    if config.getoption("--graph") == "arcadedb":
        return
    keep = [i for i in items if _on_every_server(i)]
    dropped = [i for i in items if i not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


# The suites that run on the graph only through the store's Protocols:
# once, on the embedded store (the contract suite covers the servers).
CONTRACT = Path(__file__).parent / "graph"


def _on_every_server(item: pytest.Item) -> bool:
    if "graph_backend" not in getattr(item, "fixturenames", ()):
        return False  # no graph at all: it ran on ArcadeDB
    only = item.get_closest_marker("only_on")
    if only is not None and str(only.args[0]).startswith("neo4j"):
        return True
    return item.path.is_relative_to(CONTRACT) or item.get_closest_marker("every_server") is not None


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers of tests that apply to one server, or to every one."""
    config.addinivalue_line(
        "markers", "only_on(server, reason): runs on that server only; the reason says why"
    )
    config.addinivalue_line(
        "markers",
        "every_server(reason): above the store, yet run on every server; the reason says why",
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip an ``only_on`` test on the other servers, with its reason."""
    marker = item.get_closest_marker("only_on")
    if marker is None:
        return
    server, reason = marker.args
    graph = item.config.getoption("--graph")
    if not graph.startswith(server):
        pytest.skip(f"{server} only: {reason}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove the run's model cache."""
    shutil.rmtree(MODEL_CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _process_logging_undone() -> Iterator[None]:
    """Undo what ``hippograph.cli.main`` does to logging when a test runs it in-process.

    It points the root logger at the ``sys.stderr`` of that moment, which is
    pytest's capture of that one test: left there, the servers later tests run
    in threads log into a closed capture, and the run's output fills with
    "--- Logging error ---" tracebacks.
    """
    root = logging.getLogger()
    before, level = set(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        # pytest's own capture handlers are subclasses, and come and go by themselves
        if handler not in before and type(handler) is logging.StreamHandler:
            root.removeHandler(handler)
    root.setLevel(level)


@pytest.fixture(scope="session")
def local_model(request: pytest.FixtureRequest) -> Iterator[str]:
    """A real model (Qwen2.5-Coder-0.5B on llama.cpp, two slots) on a loopback port,
    started once per run: its OpenAI-compatible base URL."""
    if request.config.getoption("--graph") == "neo4j-5.26":
        pytest.skip(
            "the real-model tests run on ArcadeDB and Neo4j 2026 (5.26 runs the same Cypher)"
        )
    with running(SMALL, parallel=2) as base_url:
        yield base_url


@pytest.fixture
def stub() -> Iterator[StubLLMServer]:
    """A scripted chat-completions server: the faults a real model server cannot be
    made to show on demand (429, 5xx, cut connections, malformed answers)."""
    server = StubLLMServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def graph_backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GraphBackend]:
    """The run's graph server (stopped at the end, always)."""
    graph = request.config.getoption("--graph")
    backend: GraphBackend
    if graph == "arcadedb":
        server = EmbeddedArcadeDB(tmp_path_factory.mktemp("arcadedb"), heap="2g")
        server.start()
        backend = ArcadeBackend(server).set_up_template(
            tmp_path_factory.mktemp("template"), model=MODEL, dimensions=DIMENSIONS
        )
    else:
        backend = Neo4jBackend(NEO4J_RELEASES[graph], tmp_path_factory.mktemp("neo4j-logs")).start()
    try:
        yield backend
    finally:
        backend.close()


@pytest.fixture
def graph_db(graph_backend: GraphBackend) -> Iterator[TestDatabase]:
    """An empty database of the run's server for this test."""
    with graph_backend.database() as database:
        yield database


@pytest.fixture
def pristine_db(graph_backend: GraphBackend) -> Iterator[TestDatabase]:
    """An empty database with no constraints or indexes: a graph never set up."""
    with graph_backend.database(pristine=True) as database:
        yield database


@pytest.fixture(scope="session")
async def embedder() -> SentenceTransformerEmbedder:
    """The real default model (from its installed jar), loaded once."""
    return await SentenceTransformerEmbedder.load(EmbeddingSettings(cache_dir=MODEL_CACHE))


@pytest.fixture
async def store(graph_db: TestDatabase, tmp_path: Path) -> AsyncIterator[GraphStore]:
    """A store with schema and indexes in place, on the run's server."""
    connection = await graph_db.connect(tmp_path)
    try:
        await connection.store.setup(model=MODEL, dimensions=DIMENSIONS)
        yield connection.store
    finally:
        await connection.close()


@pytest.fixture
async def runtime(
    settings: Settings, graph_db: TestDatabase, embedder: SentenceTransformerEmbedder
) -> AsyncIterator[Runtime]:
    """A runtime of the ``settings`` fixture (each folder or module has its own), on the
    test's empty database."""
    started = await Runtime.start(settings, embedder=embedder, **graph_db.start)
    try:
        yield started
    finally:
        await started.stop()
