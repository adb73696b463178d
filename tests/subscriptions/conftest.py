"""Subscriptions over a real websocket: the app under uvicorn, the ``websockets`` client."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Subprotocol

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from tests.api.conftest import ADMIN_KEY, make_settings
from tests.graphql import bearer, data_of, payload
from tests.graphs import TestDatabase
from tests.serving import serving as tests_serving

PROTOCOL = Subprotocol("graphql-transport-ws")
# Longest wait for one websocket message: a memorize job takes well under it.
WAIT_S = 60.0


@dataclass
class Server:
    """The app under uvicorn on a loopback port."""

    url: str
    app: Starlette

    @property
    def ws_url(self) -> str:
        """The websocket address of ``/graphql``."""
        return self.url.replace("http://", "ws://") + "/graphql"

    def subscribers(self) -> int:
        """Event listeners open in the server (one per running subscription)."""
        count: int = self.app.state.runtime.events.subscribers
        return count

    def wait_for_subscribers(self, count: int) -> None:
        """Until ``count`` subscriptions listen (a subscription starts after its message)."""
        deadline = time.monotonic() + WAIT_S
        while self.subscribers() < count:
            assert time.monotonic() < deadline, f"{self.subscribers()} of {count} subscribed"
            time.sleep(0.01)


@contextmanager
def serving(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, data_dir: Path, **api: Any
) -> Iterator[Server]:
    """The app (embedded mode: jobs in its own process) under uvicorn in a thread."""
    settings = make_settings(graph_db, data_dir, **api)
    app = create_app(settings, embedder=embedder, **graph_db.start)
    # uvicorn's websocket implementation is the one `hippograph serve` gets ("auto").
    with tests_serving(app) as url:
        yield Server(url, app)


@pytest.fixture
def server(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> Iterator[Server]:
    """The app with the default settings."""
    with serving(graph_db, embedder, tmp_path) as running:
        yield running


class Http:
    """GraphQL over HTTP to the server, with one key."""

    def __init__(self, client: httpx.Client, key: str) -> None:
        self.client = client
        self.key = key

    def ok(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``data`` of an operation that must succeed."""
        return data_of(
            self.client.post("/graphql", json=payload(query, variables), headers=bearer(self.key))
        )


@pytest.fixture
def http(server: Server) -> Iterator[Http]:
    """The admin's HTTP client."""
    with httpx.Client(base_url=server.url, timeout=WAIT_S) as client:
        yield Http(client, ADMIN_KEY)


class Live:
    """One graphql-transport-ws connection; messages are sorted by operation as they come."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._inbox: dict[str, list[dict[str, Any]]] = defaultdict(list)

    def send(self, message: dict[str, Any]) -> None:
        """Send one protocol message."""
        self.ws.send(json.dumps(message))

    def receive(self) -> dict[str, Any]:
        """The next message, whatever it is for."""
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=WAIT_S))
        return message

    def init(self, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send ``connection_init`` and return the answer."""
        self.send({"type": "connection_init", **({} if payload is None else {"payload": payload})})
        return self.receive()

    def subscribe(self, op_id: str, query: str, variables: dict[str, Any]) -> None:
        """Start an operation."""
        self.send(
            {"id": op_id, "type": "subscribe", "payload": {"query": query, "variables": variables}}
        )

    def next_for(self, op_id: str) -> dict[str, Any]:
        """The next message of operation ``op_id`` (others are kept for their turn)."""
        while not self._inbox[op_id]:
            message = self.receive()
            self._inbox[message.get("id", "")].append(message)
        return self._inbox[op_id].pop(0)


@contextmanager
def live(server: Server, key: str | None, header: str | None = None) -> Iterator[Live]:
    """A connection acknowledged for ``key`` (sent in ``connection_init``) or ``header``."""
    headers = {"Authorization": header} if header else None
    with connect(server.ws_url, subprotocols=[PROTOCOL], additional_headers=headers) as ws:
        connection = Live(ws)
        ack = connection.init({"authorization": f"Bearer {key}"} if key else {})
        assert ack == {"type": "connection_ack"}, ack
        yield connection
