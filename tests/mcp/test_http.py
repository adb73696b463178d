"""``/mcp`` over real HTTP (uvicorn on loopback), with the SDK's streamable HTTP client."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.testclient import TestClient

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.cli_args import serving_settings
from hippograph.server.app import create_app
from hippograph.settings import Settings
from tests.api.conftest import ADMIN_KEY
from tests.graphs import TestDatabase
from tests.mcp.conftest import ONLY_ON_ARCADEDB, World, data, error
from tests.serving import serving

pytestmark = ONLY_ON_ARCADEDB

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "curl", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}

SEARCH = """
query($userId: ID!, $query: String!) {
  search(userId: $userId, query: $query) { hits { score } }
}"""


@pytest.fixture(scope="module")
def base_url(
    world: World, module_db: TestDatabase, embedder: SentenceTransformerEmbedder
) -> Iterator[str]:
    """The app under uvicorn on a loopback port, on the module's database.

    It starts its own runtime in uvicorn's thread (the graph driver belongs to
    one event loop); ``world`` made the users and keys it reads.
    """
    settings: Settings = world.settings
    app = create_app(settings, embedder=embedder, **module_db.start)
    with serving(app) as url:
        yield url


@contextlib.asynccontextmanager
async def over_http(base_url: str, key: str) -> AsyncIterator[Client]:
    """The SDK's client on ``/mcp``, sending ``key`` as a bearer token."""
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        Client(streamable_http_client(f"{base_url}/mcp", http_client=http)) as client,
    ):
        yield client


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer hg_not-a-key"}, {"Authorization": "Basic YWxpY2U6eA=="}],
    ids=["no key", "unknown key", "not a bearer"],
)
def test_a_request_without_a_valid_key_is_refused_401(
    base_url: str, headers: dict[str, str]
) -> None:
    response = httpx2.post(
        f"{base_url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=30
    )
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "UNAUTHENTICATED"


def test_a_valid_key_is_let_through_to_the_protocol(base_url: str) -> None:
    response = httpx2.post(
        f"{base_url}/mcp",
        json=INITIALIZE,
        headers={**MCP_HEADERS, "Authorization": f"Bearer {ADMIN_KEY}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    assert response.json()["result"]["serverInfo"]["name"] == "hippograph"


@pytest.mark.parametrize(
    "bad_id", [{"a": 1}, [1], 1.5, True], ids=["object", "list", "float", "bool"]
)
def test_a_request_whose_id_is_not_a_string_or_number_gets_a_json_rpc_error(
    base_url: str, bad_id: object
) -> None:
    response = httpx2.post(
        f"{base_url}/mcp",
        json={**INITIALIZE, "id": bad_id},
        headers={**MCP_HEADERS, "Authorization": f"Bearer {ADMIN_KEY}"},
        timeout=30,
    )
    # Not 202 with no body (what a notification gets): the client learns it was refused.
    assert response.status_code == 400, response.text
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Invalid Request: id must be a string or a number"},
    }


def test_no_stream_is_held_open_a_get_is_refused_at_once(base_url: str) -> None:
    response = httpx2.get(
        f"{base_url}/mcp",
        headers={"Accept": "text/event-stream", "Authorization": f"Bearer {ADMIN_KEY}"},
        timeout=10,
    )
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


async def test_memorize_and_search_over_http(base_url: str) -> None:
    async with over_http(base_url, ADMIN_KEY) as admin:
        assert "memorize" in {t.name for t in (await admin.list_tools()).tools}
        remembered = data(
            await admin.call_tool(
                "memorize",
                {
                    "user_id": "bob",
                    "messages": [{"speaker": "bob", "content": "I keep bees on my roof."}],
                },
            )
        )
        assert remembered["finished"] is True
        found = data(await admin.call_tool("search", {"user_id": "bob", "query": "bees"}))
    assert "bees" in found["hits"][0]["memory"]["content"]
    assert found["hits"][0]["breakdown"]["final"] == found["hits"][0]["score"]


async def test_a_limited_key_over_http_sees_its_users_only_as_graphql_does(
    world: World, base_url: str
) -> None:
    async with over_http(base_url, world.alice_key) as alice:
        users = data(await alice.call_tool("list_users", {}))["users"]
        refused = error(await alice.call_tool("search", {"user_id": "bob", "query": "bees"}))

    assert [u["id"] for u in users] == ["alice"]
    graphql = httpx2.post(
        f"{base_url}/graphql",
        json={"query": SEARCH, "variables": {"userId": "bob", "query": "bees"}},
        headers={"Authorization": f"Bearer {world.alice_key}"},
        timeout=30,
    ).json()
    expected: dict[str, Any] = graphql["errors"][0]
    assert refused["code"] == expected["extensions"]["code"] == "NOT_FOUND"
    assert refused["message"] == expected["message"]


def test_a_keys_rate_limit_is_one_budget_for_graphql_and_mcp(world: World) -> None:
    api = world.settings.api.model_copy(update={"rate_limit_per_s": 0.01, "rate_limit_burst": 1})
    app = create_app(world.settings.model_copy(update={"api": api}), runtime=world.runtime)
    auth = {"Authorization": f"Bearer {ADMIN_KEY}"}
    with TestClient(app) as client:
        first = client.post("/graphql", json={"query": "{ viewer { admin } }"}, headers=auth)
        second = client.post("/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **auth})

    assert first.status_code == 200, first.text
    assert second.status_code == 429
    assert int(second.headers["retry-after"]) > 0
    assert second.json()["error"]["code"] == "RATE_LIMITED"


def test_the_latency_metric_names_mcp_requests(base_url: str) -> None:
    # Named by its route, as /graphql is, not lumped with unknown paths as "other".
    auth = {"Authorization": f"Bearer {ADMIN_KEY}"}
    response = httpx2.post(
        f"{base_url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **auth}, timeout=30
    )
    assert response.status_code == 200, response.text
    metrics = httpx2.get(f"{base_url}/metrics", headers=auth, timeout=30).text
    assert 'hippograph_request_duration_seconds_count{operation="mcp",status="200"}' in metrics


async def test_a_tool_call_spends_its_keys_budget_once_whatever_it_sends_inside(
    world: World,
) -> None:
    # A budget of one request: memorize's own operations (a session, the
    # memorize, its job) run in process for the caller /mcp admitted, so they
    # spend nothing more; the next request of the key is over the budget.
    api = world.settings.api.model_copy(update={"rate_limit_per_s": 0.01, "rate_limit_burst": 1})
    app = create_app(world.settings.model_copy(update={"api": api}), runtime=world.runtime)
    auth = {"Authorization": f"Bearer {world.alice_key}"}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "memorize",
            "arguments": {
                "user_id": "alice",
                "messages": [{"speaker": "alice", "content": "I paint on Saturdays."}],
            },
        },
    }
    # The app on this test's loop (the runtime's graph driver belongs to it),
    # with its lifespan: the MCP session manager runs there.
    transport = httpx2.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client,
    ):
        answer = await client.post("/mcp", json=call, headers={**MCP_HEADERS, **auth})
        after = await client.post("/graphql", json={"query": "{ viewer { admin } }"}, headers=auth)

    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["isError"] is False, result
    assert result["structuredContent"]["created"] == 1
    assert after.status_code == 429


@pytest.mark.parametrize(("host", "status"), [(None, 421), ("0.0.0.0", 200)])
def test_serve_with_a_public_host_lets_mcp_clients_reach_it_by_name(
    world: World, host: str | None, status: int
) -> None:
    # `hippograph serve --host 0.0.0.0` (the Dockerfile's command): the MCP
    # endpoint's guard against DNS rebinding must know the bind is public.
    settings = serving_settings(world.settings, host, None)
    app = create_app(settings, runtime=world.runtime)
    auth = {"Authorization": f"Bearer {ADMIN_KEY}"}
    named = {**MCP_HEADERS, **auth, "Host": "hippo.example.com"}
    with TestClient(app, base_url="http://hippo.example.com") as client:
        response = client.post("/mcp", json=INITIALIZE, headers=named)
    assert response.status_code == status, response.text
