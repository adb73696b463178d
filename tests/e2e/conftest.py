"""A real uvicorn server on a loopback port, for browsers and load."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette

from graph.embedded import free_port
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from tests.api.conftest import make_settings
from tests.graphs import TestDatabase


@contextlib.contextmanager
def serving(app: Starlette) -> Iterator[str]:
    """``app`` under uvicorn in a thread on a free loopback port; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def live_server(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> Iterator[str]:
    """The app under uvicorn in a thread; yields its base URL."""
    app = create_app(make_settings(graph_db, tmp_path), embedder=embedder, **graph_db.start)
    with serving(app) as url:
        yield url
