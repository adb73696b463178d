"""The MCP server with the SDK's own client: in-process, over HTTP and over stdio.

One runtime and one database per module, with two users (alice, bob) and a
key limited to alice: tests add what they need under their own ids, so they
share the set-up without depending on each other's order.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.mcp.caller import Caller
from hippograph.mcp.inprocess import InProcess
from hippograph.mcp.server import build_server
from hippograph.runtime import Runtime
from hippograph.server.app import create_app
from hippograph.settings import Settings
from tests.api.conftest import ADMIN_KEY, make_settings
from tests.graphql import bearer, data_of, payload
from tests.graphs import GraphBackend, TestDatabase

# Every module's mark: the MCP surface is tested; the Cypher under it is the
# API's, tested on every server.
ONLY_ON_ARCADEDB = pytest.mark.only_on("arcadedb", "tests the MCP surface, not the graph's Cypher")

CREATE_USER = """
mutation($id: ID!) {
  createUser(input: {id: $id, name: "someone"}) { __typename ... on Error { code message } }
}"""


class World:
    """The module's runtime, its settings and the keys the tests use."""

    def __init__(self, runtime: Runtime, database: TestDatabase, alice_key: str) -> None:
        self.runtime = runtime
        self.database = database
        self.settings = runtime.settings
        self.alice_key = alice_key
        self.app = create_app(runtime=runtime)

    def client(self, key: str) -> Client:
        """The SDK's client, connected in-process to a server acting as ``key`` (as stdio's).

        Entered by the test itself (``async with``): the client's task group must
        be left by the task that entered it, which a fixture's teardown is not.
        """
        caller = Caller(keys=lambda: self.runtime.services.keys, key=key)
        return Client(build_server(InProcess(lambda: self.app), caller))

    def as_admin(self) -> Client:
        """An in-process client acting as the admin key."""
        return self.client(ADMIN_KEY)

    def as_alice(self) -> Client:
        """An in-process client acting as the key limited to alice."""
        return self.client(self.alice_key)

    async def create_user(self, user_id: str) -> None:
        """Create ``user_id`` (over GraphQL, as admin)."""
        created = await self.admin(CREATE_USER, {"id": user_id})
        assert created["createUser"]["__typename"] == "UserCreated", created

    async def admin(self, document: str, variables: dict[str, Any] | None = None) -> Any:
        """Run a GraphQL operation as admin over the app's /graphql: to set up, and to
        check what a tool did."""
        transport = httpx.ASGITransport(app=self.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return data_of(
                await http.post(
                    "/graphql", json=payload(document, variables), headers=bearer(ADMIN_KEY)
                )
            )


@pytest.fixture(scope="module")
def module_db(graph_backend: GraphBackend) -> Iterator[TestDatabase]:
    """One empty database for the module."""
    with graph_backend.database() as database:
        yield database


@pytest.fixture(scope="module")
def module_settings(module_db: TestDatabase, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings on the module's database, with the test admin key."""
    return make_settings(module_db, tmp_path_factory.mktemp("mcp"))


@pytest.fixture(scope="module")
async def world(
    module_settings: Settings, module_db: TestDatabase, embedder: SentenceTransformerEmbedder
) -> AsyncIterator[World]:
    """The runtime, users alice and bob, and a key for alice only."""
    runtime = await Runtime.start(module_settings, embedder=embedder, **module_db.start)
    try:
        made = World(runtime, module_db, alice_key="")
        for user in ("alice", "bob"):
            await made.create_user(user)
        _, made.alice_key = await runtime.services.keys.issue("alice", False, ["alice"])
        yield made
    finally:
        await runtime.stop()


def data(result: CallToolResult) -> dict[str, Any]:
    """A successful tool result's structured data (and its text says the same)."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    first = result.content[0]
    assert isinstance(first, TextContent)
    assert json.loads(first.text) == result.structured_content
    found: dict[str, Any] = result.structured_content
    return found


def error(result: CallToolResult) -> dict[str, Any]:
    """A failed tool result's error: its code, message and field."""
    assert result.is_error, result.structured_content
    assert result.structured_content is not None, result.content
    found: dict[str, Any] = result.structured_content["error"]
    first = result.content[0]
    assert isinstance(first, TextContent)
    assert first.text == f"{found['code']}: {found['message']}"
    return found
