"""Operations over real HTTP: health, readiness, metrics, request ids, rate limits, body cap."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from starlette.testclient import TestClient

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.logs import JsonFormatter
from hippograph.server.app import create_app
from tests.api.conftest import ADMIN_KEY, CREATE_USER, Api, add_memory, make_settings
from tests.graphs import TestDatabase

SEARCH = """
query($u: ID!, $q: String!) { search(userId: $u, query: $q) { hits { memory { id } } } }
"""
USERS = "{ users(first: 50) { edges { node { id } } } }"


def test_healthz_and_readyz_answer_when_everything_is_up(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.json()
    # Embedded mode has no queue to check: graph and model only.
    assert ready.json() == {"status": "ready", "checks": {"graph": "ok", "model": "ok"}}


def test_a_flood_of_readiness_probes_runs_one_check_at_a_time(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # /readyz takes no key, and a check costs a graph query and an embedding.
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    readiness = runtime.readiness
    checks: list[float] = []

    async def counted(timeout_s: float) -> dict[str, str]:
        checks.append(timeout_s)
        await asyncio.sleep(0.2)  # a slow graph: the probes arrive meanwhile
        answer: dict[str, str] = await readiness(timeout_s)
        return answer

    monkeypatch.setattr(runtime, "readiness", counted)

    async def flood() -> list[int]:
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            answers = await asyncio.gather(*(http.get("/readyz") for _ in range(20)))
        return [a.status_code for a in answers]

    assert client.portal.call(flood) == [200] * 20  # type: ignore[union-attr]
    assert len(checks) == 1
    assert client.get("/readyz").status_code == 200  # a second later at most: the same
    assert len(checks) == 1


def test_metrics_count_requests_by_operation_and_memories_by_kind(api: Api) -> None:
    api.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    add_memory(api, "ann", "Ann keeps bees on the roof.")
    api.ok(SEARCH, {"u": "ann", "q": "bees"})
    api.ok(SEARCH, {"u": "ann", "q": "roof"})
    response = api.client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert _sample(text, 'hippograph_request_duration_seconds_count{operation="query:search"') == 2
    assert _sample(text, 'hippograph_request_duration_seconds_count{operation="mutation:addMemory"')
    assert (
        _sample(text, 'hippograph_memories{deleted="false",kind="semantic",level="full"}') == 1
    ), text
    # Only the series themselves: no ``_created`` twin per counter and histogram.
    assert "_created" not in text, text


def test_a_field_the_schema_lacks_adds_no_series_to_the_metrics(client: TestClient) -> None:
    # Named before validation, without a key: each invented field would be a
    # new label value, and /metrics would grow with every such request.
    for i in range(3):
        refused = client.post("/graphql", json={"query": f"{{ notAField{i} }}"})
        assert refused.json()["errors"], refused.json()
    client.post("/graphql", json={"query": "mutation { nor" + "x" * 5000 + " }"})
    client.post("/graphql", json={"query": "{ __typename }"})
    text = client.get("/metrics").text
    assert "notAField" not in text
    assert "xxxxx" not in text
    assert _sample(text, 'hippograph_request_duration_seconds_count{operation="query:unknown"') == 3
    assert _sample(text, 'hippograph_request_duration_seconds_count{operation="mutation:unknown"')
    assert _sample(text, 'hippograph_request_duration_seconds_count{operation="query:__typename"')


def test_the_explorer_page_is_as_strict_under_static(client: TestClient) -> None:
    # The same page, reached by its file's path: it reads the key from the
    # browser's storage, so no other site may frame it there either.
    for path in ("/explore", "/static/explore.html", "/static/explore.js"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"], path
        assert response.headers["referrer-policy"] == "no-referrer", path


def test_every_response_carries_a_request_id_and_a_tame_given_one_is_kept(
    client: TestClient,
) -> None:
    generated = client.get("/healthz").headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", generated)
    kept = client.get("/healthz", headers={"X-Request-ID": "agent-7.call:42"})
    assert kept.headers["x-request-id"] == "agent-7.call:42"
    # An id that would let a caller write into our logs is replaced.
    hostile = client.get("/healthz", headers={"X-Request-ID": 'x"}\n{"level": "error"'})
    assert re.fullmatch(r"[0-9a-f]{32}", hostile.headers["x-request-id"])


def test_log_lines_are_json_with_the_request_id(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="hippograph.access"):
        response = api.client.post(
            "/graphql",
            json={"query": USERS},
            headers={"Authorization": f"Bearer {ADMIN_KEY}", "X-Request-ID": "trace-1"},
        )
    assert response.status_code == 200
    (record,) = [r for r in caplog.records if r.name == "hippograph.access"]
    entry = json.loads(JsonFormatter().format(record))
    assert entry["request_id"] == "trace-1"
    assert entry["operation"] == "query:users"
    assert entry["status"] == 200
    assert entry["level"] == "info"
    assert entry["duration_ms"] > 0


@pytest.mark.parametrize(
    ("body", "operation"),
    [
        # Several operations: the one operationName picks, not the first.
        (
            {
                "query": "fragment Id on User { id } query A { viewer { admin } } "
                'query B { user(id: "x") { ...Id } }',
                "operationName": "B",
            },
            "query:user",
        ),
        # A root selection that is a fragment spread names no root field.
        ({"query": "{ ...Q } fragment Q on Query { viewer { admin } }"}, "query:fragment"),
        # An operationName that no operation has: GraphQL refuses it; the route names it.
        ({"query": "query A { viewer { admin } }", "operationName": "Z"}, "graphql"),
    ],
)
def test_the_access_log_names_the_operation_that_ran(
    api: Api, caplog: pytest.LogCaptureFixture, body: dict[str, str], operation: str
) -> None:
    with caplog.at_level(logging.INFO, logger="hippograph.access"):
        api.client.post("/graphql", json=body, headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    (record,) = [r for r in caplog.records if r.name == "hippograph.access"]
    assert json.loads(JsonFormatter().format(record))["operation"] == operation


@pytest.fixture
def limited(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> Iterator[Api]:
    """An app whose keys may make 3 requests at once and then one every 10 s."""
    settings = make_settings(
        graph_db, tmp_path, rate_limit_per_s=0.1, rate_limit_burst=3, max_body_bytes=64 * 1024
    )
    app = create_app(settings, embedder=embedder, **graph_db.start)
    with TestClient(app) as client:
        yield Api(client, ADMIN_KEY)


def test_a_key_over_its_rate_gets_429_with_retry_after_and_nothing_is_written(
    limited: Api,
) -> None:
    for user in ("a1", "a2", "a3"):
        limited.ok(CREATE_USER, {"id": user, "name": user})
    response = limited.client.post(
        "/graphql",
        json={"query": CREATE_USER, "variables": {"id": "a4", "name": "a4"}},
        headers={"Authorization": f"Bearer {ADMIN_KEY}"},
    )
    assert response.status_code == 429
    assert 1 <= int(response.headers["retry-after"]) <= 10
    assert response.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
    # Other callers have their own bucket: the anonymous one still gets in,
    # and can see (through introspection) that the API answers.
    assert limited.as_key(None).post("{ __typename }")["_status"] == 200
    metrics = limited.client.get("/metrics").text
    assert _sample(metrics, "hippograph_rate_limited_requests_total") == 1
    assert _stored_users(limited.client, ["a1", "a2", "a3", "a4"]) == {"a1", "a2", "a3"}


def test_bodies_over_the_cap_are_refused_with_413_declared_or_streamed(limited: Api) -> None:
    big = json.dumps(
        {"query": CREATE_USER, "variables": {"id": "big", "name": "x" * 70_000}}
    ).encode()
    headers = {"Authorization": f"Bearer {ADMIN_KEY}", "Content-Type": "application/json"}
    declared = limited.client.post("/graphql", content=big, headers=headers)
    assert declared.status_code == 413
    assert declared.json()["errors"][0]["extensions"]["code"] == "PAYLOAD_TOO_LARGE"

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(big), 8192):
            yield big[start : start + 8192]

    streamed = limited.client.post("/graphql", content=chunks(), headers=headers)
    assert streamed.status_code == 413
    assert "MAX_BODY_BYTES" in streamed.json()["errors"][0]["message"]
    assert _stored_users(limited.client, ["big"]) == set()


def _stored_users(client: TestClient, ids: list[str]) -> set[str]:
    """Which of ``ids`` exist, read straight from the graph on the app's own loop."""
    users = client.app.state.runtime.connection.store.users  # type: ignore[attr-defined]
    assert client.portal is not None
    return set(client.portal.call(users.get_users, ids))


def _sample(text: str, prefix: str) -> float:
    """The value of the first sample line starting with ``prefix`` (0 if none)."""
    for line in text.splitlines():
        if line.startswith(prefix):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_are_within_the_rate_limit_and_behind_an_admin_key_when_asked(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    settings = make_settings(graph_db, tmp_path, rate_limit_per_s=0.001, rate_limit_burst=2)
    with TestClient(create_app(settings, embedder=embedder, **graph_db.start)) as client:
        # Open by default, but each scrape takes a token of its caller's bucket.
        assert [client.get("/metrics").status_code for _ in range(3)] == [200, 200, 429]
    keyed = make_settings(graph_db, tmp_path, metrics_require_key=True)
    with TestClient(create_app(keyed, embedder=embedder, **graph_db.start)) as client:
        anonymous = client.get("/metrics")
        assert anonymous.status_code == 401
        assert anonymous.json()["error"]["code"] == "UNAUTHENTICATED"
        assert (
            client.get("/metrics", headers={"Authorization": "Bearer hg_nope"}).status_code == 401
        )
        api = Api(client, ADMIN_KEY)
        limited_key = api.ok(
            'mutation { createApiKey(input: {name: "m", userIds: ["x"]}) '
            "{ ... on ApiKeyCreated { key } } }"
        )["createApiKey"]["key"]
        forbidden = client.get("/metrics", headers={"Authorization": f"Bearer {limited_key}"})
        assert forbidden.status_code == 403
        scraped = client.get("/metrics", headers={"Authorization": f"Bearer {ADMIN_KEY}"})
        assert scraped.status_code == 200
        assert "hippograph_" in scraped.text


def test_every_door_admits_alike_and_a_guessed_key_spends_its_address_budget(
    limited: Api,
) -> None:
    # /graphql, /mcp and /metrics go through one admission (hippograph/admission.py).
    wrong = {"Authorization": "Bearer hg_not_a_key"}

    def knock() -> list[httpx2.Response]:
        """Each door once, with the wrong key."""
        return [
            limited.client.post("/graphql", json={"query": "{ __typename }"}, headers=wrong),
            limited.client.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={**wrong, "Accept": "application/json, text/event-stream"},
            ),
            limited.client.get("/metrics", headers=wrong),
        ]

    refused = knock()  # the address's burst is 3
    assert [r.status_code for r in refused] == [401, 401, 401]
    assert {r.headers["www-authenticate"] for r in refused} == {"Bearer"}
    over = knock()
    assert [r.status_code for r in over] == [429, 429, 429]
    assert all(int(r.headers["retry-after"]) >= 1 for r in over)
    # The admin key has a budget of its own.
    assert limited.as_key(ADMIN_KEY).post("{ __typename }")["_status"] == 200
