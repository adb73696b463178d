"""The graph goes away under a running API, then comes back.

The API reaches the test's graph as a remote server (Bolt over TCP),
through a proxy the test cuts: while it is cut, every operation answers a
clean UNAVAILABLE error (no 500, no hang, no traceback), /readyz says the
graph is down while /healthz stays up, and once the proxy is back the same
requests work again without a restart.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from hippograph.settings import ApiSettings, Settings
from tests.api.conftest import ADMIN_KEY, CREATE_USER, Api, add_memory
from tests.faults.proxy import Proxy
from tests.graphs import TestDatabase

SEARCH = 'query { search(userId: "ann", query: "bees") { hits { memory { content } } } }'


@pytest.fixture
def proxy(graph_db: TestDatabase) -> Iterator[Proxy]:
    """A cuttable proxy in front of the test server's Bolt port."""
    host, port = graph_db.bolt_uri.removeprefix("bolt://").rsplit(":", 1)
    started = Proxy(host, int(port)).start()
    try:
        yield started
    finally:
        started.cut()


@pytest.fixture
def api(
    proxy: Proxy,
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    tmp_path: Path,
) -> Iterator[Api]:
    """The API on the test's database as a remote server, reached through ``proxy``."""
    settings = Settings(
        graph=graph_db.remote_settings(
            tmp_path, uri=f"bolt://127.0.0.1:{proxy.port}", connection_timeout_s=2.0
        ),
        api=ApiSettings(admin_key=ADMIN_KEY, key_cache_ttl_s=0),
    )
    app = create_app(settings, embedder=embedder)
    with TestClient(app) as client:
        yield Api(client, ADMIN_KEY)


@pytest.mark.slow
def test_graph_down_answers_unavailable_then_recovers(api: Api, proxy: Proxy) -> None:
    api.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    add_memory(api, "ann", "Ann keeps bees on the roof.")
    assert api.ok(SEARCH)["search"]["hits"]

    proxy.cut()
    for query, variables in (
        (SEARCH, None),
        (CREATE_USER, {"id": "bob", "name": "Bob"}),
        ('{ memory(id: "mem_01J00000000000000000000000") { id } }', None),
    ):
        started = time.monotonic()
        body = api.post(query, variables)
        elapsed = time.monotonic() - started
        assert body["_status"] in (200, 503), body
        codes = [e["extensions"]["code"] for e in body.get("errors") or []]
        payload = (body.get("data") or {}).get("createUser") or {}
        assert codes == ["UNAVAILABLE"] or payload.get("code") == "UNAVAILABLE", body
        assert "cannot be reached" in str(body)
        assert elapsed < 20, f"{query[:30]} took {elapsed:.1f} s"
    ready = api.client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["checks"]["model"] == "ok"
    assert ready.json()["checks"]["graph"] != "ok"
    assert api.client.get("/healthz").status_code == 200
    assert api.client.get("/metrics").status_code == 200  # served from the last counts

    proxy.start()
    deadline = time.monotonic() + 30
    while api.client.get("/readyz").status_code != 200:
        assert time.monotonic() < deadline, "the API did not see the graph come back"
        time.sleep(0.2)
    assert api.ok(SEARCH)["search"]["hits"][0]["memory"]["content"] == "Ann keeps bees on the roof."
    # The write refused while the graph was down was not half done: Bob is new now.
    created = api.ok(CREATE_USER, {"id": "bob", "name": "Bob"})["createUser"]
    assert created["__typename"] == "UserCreated", created
