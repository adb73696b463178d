"""A real uvicorn server on a loopback port, for browsers and load."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from tests.api.conftest import make_settings
from tests.graphs import TestDatabase
from tests.serving import serving


@pytest.fixture
def live_server(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> Iterator[str]:
    """The app under uvicorn in a thread; yields its base URL."""
    app = create_app(make_settings(graph_db, tmp_path), embedder=embedder, **graph_db.start)
    with serving(app) as url:
        yield url
