"""One real server for the client's tests: the app under uvicorn on a loopback port.

Package-scoped (starting it costs seconds) and shared by the sync and async
suites; each test works on users of its own, so none sees another's data.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hippograph_client import HippoGraph
from starlette.applications import Starlette

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from tests.api.conftest import ADMIN_KEY, make_settings
from tests.graphs import GraphBackend
from tests.serving import serving


@dataclass(frozen=True)
class LiveServer:
    """Where the test server listens, its admin key, and the app it serves."""

    url: str
    admin_key: str
    app: Starlette


@pytest.fixture(scope="package")
def live(
    graph_backend: GraphBackend,
    embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LiveServer]:
    """The server the client tests share (no rate limit: they share one admin key)."""
    with graph_backend.database() as graph_db:
        data_dir = Path(tmp_path_factory.mktemp("client"))
        settings = make_settings(graph_db, data_dir, rate_limit_per_s=0)
        app = create_app(settings, embedder=embedder, **graph_db.start)
        with serving(app) as url:
            yield LiveServer(url, ADMIN_KEY, app)


@pytest.fixture
def admin(live: LiveServer) -> Iterator[HippoGraph]:
    """A sync client with the admin key."""
    with HippoGraph(live.url, live.admin_key) as client:
        yield client
