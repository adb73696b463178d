"""jobUpdated and memoryAdded over a real websocket, scoped by key like every query."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.typing import Subprotocol

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from tests.api.conftest import (
    ADD_MEMORY,
    ADMIN_KEY,
    ANN_FACTS_BY_THEME,
    CREATE_SESSION,
    CREATE_USER,
)
from tests.graphs import TestDatabase
from tests.subscriptions.conftest import PROTOCOL, Http, Live, Server, live, serving

pytestmark = pytest.mark.only_on(
    "arcadedb", "the websocket layer is the same whatever the graph; its reads are tested there"
)

JOB_UPDATED = "subscription($id: ID!) { jobUpdated(id: $id) { id status counts { memories } } }"
MEMORY_ADDED = """subscription($userId: ID!) {
  memoryAdded(userId: $userId) { __typename id userId content kind }
}"""
MEMORIZE = """mutation($input: MemorizeInput!) {
  memorize(input: $input) { __typename ... on Memorized { job { id status } } }
}"""
ALL_MEMORIES = """query($userId: ID!) {
  memories(userId: $userId, first: 100, filter: {includeConsolidated: true}) {
    edges { node { id kind } }
  }
}"""
MEMORIES = """query($userId: ID!) {
  memories(userId: $userId, first: 100) { edges { node { id } } }
}"""
UPDATE = """mutation($id: ID!, $content: String!) {
  updateMemory(input: {id: $id, content: $content}) {
    __typename ... on MemoryPayload { memory { id } }
  }
}"""
APPLY = """mutation($userId: ID!, $ops: [MemoryOpInput!]!) {
  applyMemoryOps(input: {userId: $userId, ops: $ops}) {
    __typename ... on MemoryOpsApplied { results { memoryId } }
  }
}"""
KEY = """mutation($u: [ID!]!) {
  createApiKey(input: {name: "t", userIds: $u}) { ... on ApiKeyCreated { key } }
}"""

CONVERSATION = [
    ("Caroline", "I went to a support group yesterday and everyone was welcoming."),
    ("Caroline", "My name is Caroline Smith and I live in Boston."),
    ("Melanie", "That is wonderful. I painted a sunrise over the lake last week."),
    ("Caroline", "I love painting too! My favourite colour is green."),
]
ORDER = ["QUEUED", "RUNNING", "SUCCEEDED"]


def _user(http: Http, user_id: str) -> str:
    """A user with a session; returns the session id."""
    assert http.ok(CREATE_USER, {"id": user_id, "name": user_id.title()})["createUser"]["user"]
    session: str = http.ok(CREATE_SESSION, {"userId": user_id})["createSession"]["session"]["id"]
    return session


def _add(http: Http, user_id: str, content: str) -> str:
    added = http.ok(ADD_MEMORY, {"input": {"userId": user_id, "content": content}})["addMemory"]
    assert added["__typename"] == "MemoryPayload", added
    memory_id: str = added["memory"]["id"]
    return memory_id


def _data(message: dict[str, Any], field: str) -> dict[str, Any]:
    assert message["type"] == "next", message
    assert not message["payload"].get("errors"), message
    value: dict[str, Any] = message["payload"]["data"][field]
    return value


def _error_code(message: dict[str, Any]) -> str:
    errors = message["payload"] if message["type"] == "error" else message["payload"]["errors"]
    assert len(errors) == 1, message
    code: str = errors[0]["extensions"]["code"]
    return code


def test_a_memorize_job_is_followed_to_its_end_and_its_memories_arrive(
    server: Server, http: Http
) -> None:
    session = _user(http, "caro")
    messages = [
        {"speaker": s, "content": c, "ts": f"2023-05-08T13:5{i}:00+00:00"}
        for i, (s, c) in enumerate(CONVERSATION)
    ]
    with live(server, ADMIN_KEY) as ws:
        ws.subscribe("mem", MEMORY_ADDED, {"userId": "caro"})
        server.wait_for_subscribers(1)
        memorized = http.ok(
            MEMORIZE,
            {
                "input": {
                    "userIds": ["caro"],
                    "sessionId": session,
                    "messages": messages,
                    "async": True,
                }
            },
        )["memorize"]
        job_id = memorized["job"]["id"]
        ws.subscribe("job", JOB_UPDATED, {"id": job_id})
        states = []
        while (message := ws.next_for("job"))["type"] == "next":
            states.append(_data(message, "jobUpdated"))
        assert message == {"id": "job", "type": "complete"}
        statuses = [s["status"] for s in states]
        # The first state is the job as it was on subscribing; then every change, in order.
        assert statuses == sorted(set(statuses), key=ORDER.index), statuses
        assert statuses[-1] == "SUCCEEDED"
        made = states[-1]["counts"]["memories"]
        assert made > 0
        arrived = [_data(ws.next_for("mem"), "memoryAdded") for _ in range(made)]
    stored = http.ok(MEMORIES, {"userId": "caro"})["memories"]["edges"]
    # Stored may also hold a reflection the run's facts led to, made after them.
    assert len({m["id"] for m in arrived}) == made
    assert {m["id"] for m in arrived} <= {e["node"]["id"] for e in stored}
    assert {m["userId"] for m in arrived} == {"caro"}
    assert server.subscribers() == 0  # closing the connection ended its subscription


def test_a_repeat_memorized_again_is_not_announced_as_a_new_memory(
    server: Server, http: Http
) -> None:
    session = _user(http, "dora")
    messages = [{"speaker": s, "content": c} for s, c in CONVERSATION]
    memorize: dict[str, Any] = {
        "input": {"userIds": ["dora"], "sessionId": session, "messages": messages}
    }

    # A reflection the facts lead to is made by a job, whenever it runs, and
    # consolidates facts: both are left out, so the test does not race it.
    def stored() -> set[str]:
        edges = http.ok(ALL_MEMORIES, {"userId": "dora"})["memories"]["edges"]
        return {m["node"]["id"] for m in edges if m["node"]["kind"] != "REFLECTION"}

    def announced_until(wanted: set[str]) -> set[str]:
        seen: set[str] = set()
        while not wanted <= seen:
            got = _data(ws.next_for("mem"), "memoryAdded")
            if got["kind"] != "REFLECTION":
                seen.add(got["id"])
        return seen

    with live(server, ADMIN_KEY) as ws:
        ws.subscribe("mem", MEMORY_ADDED, {"userId": "dora"})
        server.wait_for_subscribers(1)
        http.ok(MEMORIZE, memorize)
        first = stored()
        assert announced_until(first) == first
        # The same turns again, and one new, in one call: each old turn is one
        # more source of what exists, not news; only the new one is announced,
        # and then the next memory added.
        cat = {"speaker": "Caroline", "content": "I adopted a grey cat called Miso on Sunday."}
        memorize["input"]["messages"] = [*messages, cat]
        http.ok(MEMORIZE, memorize)
        new = stored() - first
        assert new
        tea = _add(http, "dora", "Dora drinks green tea")
        assert announced_until(new | {tea}) == new | {tea}


def test_new_memories_reach_their_users_subscribers_and_nobody_else(
    server: Server, http: Http
) -> None:
    _user(http, "alice")
    _user(http, "bob")
    alice_key = http.ok(KEY, {"u": ["alice"]})["createApiKey"]["key"]
    bob_key = http.ok(KEY, {"u": ["bob"]})["createApiKey"]["key"]
    alices_job = http.ok(
        'mutation { reflect(userId: "alice", force: true) { __typename ... on ReflectQueued { job { id } } } }'
    )
    with live(server, alice_key) as alice, live(server, bob_key) as bob:
        # Another tenant's user and job are not found, and that is all they get.
        bob.subscribe("a", MEMORY_ADDED, {"userId": "alice"})
        assert _error_code(bob.next_for("a")) == "NOT_FOUND"
        assert bob.next_for("a") == {"id": "a", "type": "complete"}
        bob.subscribe("j", JOB_UPDATED, {"id": alices_job["reflect"]["job"]["id"]})
        assert _error_code(bob.next_for("j")) == "NOT_FOUND"
        assert bob.next_for("j") == {"id": "j", "type": "complete"}

        alice.subscribe("mine", MEMORY_ADDED, {"userId": "alice"})
        bob.subscribe("mine", MEMORY_ADDED, {"userId": "bob"})
        server.wait_for_subscribers(2)
        assert _open_subscriptions(http) == 2  # what /metrics tells an operator
        tea = _add(Http(http.client, alice_key), "alice", "Alice drinks green tea")
        got = _data(alice.next_for("mine"), "memoryAdded")
        assert (got["id"], got["content"], got["__typename"]) == (
            tea,
            "Alice drinks green tea",
            "SemanticMemory",
        )
        # A new version is a new memory; so is an agent's ADD.
        coffee = http.ok(UPDATE, {"id": tea, "content": "Alice drinks coffee"})["updateMemory"]
        assert _data(alice.next_for("mine"), "memoryAdded")["id"] == coffee["memory"]["id"]
        ops = [{"op": "ADD", "content": "Alice plays chess"}]
        applied = http.ok(APPLY, {"userId": "alice", "ops": ops})["applyMemoryOps"]
        assert (
            _data(alice.next_for("mine"), "memoryAdded")["id"] == applied["results"][0]["memoryId"]
        )
        # Bob's first event is his own memory: none of Alice's three came before it.
        own = _add(http, "bob", "Bob likes jazz")
        assert _data(bob.next_for("mine"), "memoryAdded")["id"] == own


def test_keys_are_checked_when_the_connection_opens(server: Server, http: Http) -> None:
    _user(http, "dora")
    # A bad key: the connection is refused with 4403, whichever way the key came.
    for payload, header in (({"authorization": "Bearer hg_not-a-key"}, None), ({}, "Bearer hg_no")):
        headers = {"Authorization": header} if header else None
        with connect(server.ws_url, subprotocols=[PROTOCOL], additional_headers=headers) as ws:
            connection = Live(ws)
            with pytest.raises(ConnectionClosed) as closed:
                connection.init(payload)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 4403
    with connect(server.ws_url, subprotocols=[PROTOCOL]) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            Live(ws).init({"authorization": 42})
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (
            4403,
            "authorization must be a string: 'Bearer <key>'",
        )
    # Subscribing before connection_init is the protocol's 4401.
    with connect(server.ws_url, subprotocols=[PROTOCOL]) as ws:
        early = Live(ws)
        early.subscribe("1", MEMORY_ADDED, {"userId": "dora"})
        with pytest.raises(ConnectionClosed) as closed:
            early.receive()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 4401
    # The upgrade request's header is enough.
    with live(server, None, header=f"Bearer {ADMIN_KEY}") as ws:
        ws.subscribe("1", MEMORY_ADDED, {"userId": "nobody"})
        assert _error_code(ws.next_for("1")) == "NOT_FOUND"
    # No key: admitted, and every subscription answers UNAUTHENTICATED.
    with live(server, None) as ws:
        ws.subscribe("1", MEMORY_ADDED, {"userId": "dora"})
        assert _error_code(ws.next_for("1")) == "UNAUTHENTICATED"
        ws.subscribe("2", JOB_UPDATED, {"id": "job_01HZZZZZZZZZZZZZZZZZZZZZZZ"})
        assert _error_code(ws.next_for("2")) == "UNAUTHENTICATED"
    # Bad ids are the client's error, named.
    with live(server, ADMIN_KEY) as ws:
        ws.subscribe("1", JOB_UPDATED, {"id": "mem_01HZZZZZZZZZZZZZZZZZZZZZZZ"})
        assert _error_code(ws.next_for("1")) == "BAD_USER_INPUT"
        ws.subscribe("2", MEMORY_ADDED, {"userId": "a b"})
        assert _error_code(ws.next_for("2")) == "BAD_USER_INPUT"
    assert server.subscribers() == 0


def test_only_the_graphql_transport_ws_protocol_is_spoken(server: Server) -> None:
    legacy = [Subprotocol("graphql-ws")]
    with (
        connect(server.ws_url, subprotocols=legacy) as ws,
        pytest.raises(ConnectionClosed) as closed,
    ):
        ws.recv(timeout=10)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 4406


def test_the_websocket_serves_subscriptions_only_and_within_the_keys_rate(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    # A burst of three and next to no refill: a connection and two operations.
    limits = {"rate_limit_per_s": 0.001, "rate_limit_burst": 3}
    with serving(graph_db, embedder, tmp_path, **limits) as server, live(server, ADMIN_KEY) as ws:
        # Queries and mutations go over HTTP, where the body cap and the access log are.
        ws.subscribe("q", "query { viewer { admin } }", {})
        refused = ws.next_for("q")
        assert refused["type"] == "error"
        assert _error_code(refused) == "BAD_REQUEST"
        ws.subscribe("s", JOB_UPDATED, {"id": "job_01HZZZZZZZZZZZZZZZZZZZZZZZ"})
        assert _error_code(ws.next_for("s")) == "NOT_FOUND"
        ws.subscribe("over", JOB_UPDATED, {"id": "job_01HZZZZZZZZZZZZZZZZZZZZZZZ"})
        assert _error_code(ws.next_for("over")) == "RATE_LIMITED"
        # A new connection with the same key is over the limit too.
        with connect(server.ws_url, subprotocols=[PROTOCOL]) as again:
            with pytest.raises(ConnectionClosed) as closed:
                Live(again).init({"authorization": f"Bearer {ADMIN_KEY}"})
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 4429
        # Both refusals are counted, as the HTTP doors count theirs (this
        # scrape spends the address's budget, not the key's).
        scraped = httpx.get(f"{server.url}/metrics", timeout=30).text
        assert "hippograph_rate_limited_requests_total 2.0" in scraped


def test_a_subscription_over_http_is_told_where_to_go(server: Server, http: Http) -> None:
    body = {"query": 'subscription { memoryAdded(userId: "x") { id } }'}
    auth = {"Authorization": f"Bearer {ADMIN_KEY}"}
    plain = http.client.post("/graphql", json=body, headers=auth)
    assert plain.status_code == 200
    [error] = plain.json()["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert "websocket on /graphql" in error["message"]
    # Strawberry's multipart subscriptions over HTTP are not served either.
    accept = {**auth, "Accept": 'multipart/mixed;subscriptionSpec="1.0"'}
    streamed = http.client.post("/graphql", json=body, headers=accept)
    assert streamed.headers["content-type"] == "application/json"
    assert streamed.json() == plain.json()


FACTS = [fact for facts in ANN_FACTS_BY_THEME.values() for fact in facts]
REFLECT = """mutation { reflect(userId: "ann") {
  __typename ... on ReflectQueued { job { id } }
} }"""


def test_reflections_are_new_memories_too(server: Server, http: Http) -> None:
    _user(http, "ann")
    for content, importance in FACTS:
        http.ok(
            ADD_MEMORY, {"input": {"userId": "ann", "content": content, "importance": importance}}
        )
    with live(server, ADMIN_KEY) as ws:
        ws.subscribe("mem", MEMORY_ADDED, {"userId": "ann"})
        server.wait_for_subscribers(1)
        job_id = http.ok(REFLECT)["reflect"]["job"]["id"]
        ws.subscribe("job", JOB_UPDATED, {"id": job_id})
        while (message := ws.next_for("job"))["type"] == "next":
            last = _data(message, "jobUpdated")
        assert last["status"] == "SUCCEEDED"
        # One reflection per theme (coffee, climbing), and nothing else: the
        # facts were there before the subscription.
        reflections = [_data(ws.next_for("mem"), "memoryAdded") for _ in range(2)]
    assert {(r["__typename"], r["kind"]) for r in reflections} == {("Reflection", "REFLECTION")}
    stored = http.ok(MEMORIES, {"userId": "ann"})["memories"]["edges"]
    assert {r["id"] for r in reflections} == {e["node"]["id"] for e in stored}


def test_a_revoked_key_stops_receiving(server: Server, http: Http) -> None:
    _user(http, "eve")
    created = http.ok(
        'mutation { createApiKey(input: {name: "t", userIds: ["eve"]}) '
        "{ ... on ApiKeyCreated { id key } } }"
    )["createApiKey"]
    with live(server, created["key"]) as ws:
        ws.subscribe("mine", MEMORY_ADDED, {"userId": "eve"})
        server.wait_for_subscribers(1)
        first = _add(http, "eve", "Eve keeps bees")
        assert _data(ws.next_for("mine"), "memoryAdded")["id"] == first
        revoked = http.ok(
            "mutation($id: ID!) { revokeApiKey(id: $id) { __typename } }", {"id": created["id"]}
        )
        assert revoked["revokeApiKey"]["__typename"] == "ApiKeyRevoked"
        # The next event finds the key revoked (the tests' key cache lasts 0 s).
        _add(http, "eve", "Eve sells honey")
        assert _error_code(ws.next_for("mine")) == "UNAUTHENTICATED"
        assert ws.next_for("mine") == {"id": "mine", "type": "complete"}
        # A new subscription on the connection the key opened is refused at once.
        ws.subscribe("again", MEMORY_ADDED, {"userId": "eve"})
        assert _error_code(ws.next_for("again")) == "UNAUTHENTICATED"


def _open_subscriptions(http: Http) -> float:
    """``hippograph_subscriptions_open`` as ``/metrics`` reports it."""
    found = re.search(
        r"^hippograph_subscriptions_open (\S+)$", http.client.get("/metrics").text, re.M
    )
    assert found is not None
    return float(found.group(1))


def test_a_bad_subscribe_payload_is_refused_alone_and_the_connection_stays(
    server: Server, http: Http
) -> None:
    missing = {"id": "job_01HZZZZZZZZZZZZZZZZZZZZZZZ"}
    with live(server, ADMIN_KEY) as ws:
        ws.subscribe("first", JOB_UPDATED, missing)
        assert _error_code(ws.next_for("first")) == "NOT_FOUND"
        # A lone surrogate in the variables, as HTTP refuses it.
        ws.subscribe("surrogate", MEMORY_ADDED, {"userId": "bob\ud800"})
        refused = ws.next_for("surrogate")
        assert refused["type"] == "error", refused
        assert _error_code(refused) == "BAD_USER_INPUT"
        assert "userId" in refused["payload"][0]["message"]
        for op_id, payload in (
            ("no-query", {"variables": {}}),
            ("query-number", {"query": 7}),
            ("variables-list", {"query": MEMORY_ADDED, "variables": ["ann"]}),
            ("name-number", {"query": MEMORY_ADDED, "operationName": 3}),
            ("not-an-object", "subscription { x }"),
            ("surrogate-query", {"query": "subscription { x }", "extensions": {"a": "\udc00"}}),
        ):
            ws.send({"id": op_id, "type": "subscribe", "payload": payload})
            answer = ws.next_for(op_id)
            assert answer["type"] == "error", (op_id, answer)
            assert _error_code(answer) == "BAD_REQUEST", (op_id, answer)
        # The connection and its subscriptions are still there.
        ws.subscribe("after", JOB_UPDATED, missing)
        assert _error_code(ws.next_for("after")) == "NOT_FOUND"


def test_a_key_holds_at_most_its_caps_of_connections_and_subscriptions(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    caps = {"max_websockets_per_key": 2, "max_subscriptions_per_key": 2}
    with (
        serving(graph_db, embedder, tmp_path, **caps) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        http = Http(client, ADMIN_KEY)
        _user(http, "ann")
        other_key = http.ok(KEY, {"u": ["ann"]})["createApiKey"]["key"]
        with live(server, ADMIN_KEY) as first, live(server, ADMIN_KEY) as second:
            # A third connection for the same key is refused; another key's is not.
            with connect(server.ws_url, subprotocols=[PROTOCOL]) as third:
                with pytest.raises(ConnectionClosed) as closed:
                    Live(third).init({"authorization": f"Bearer {ADMIN_KEY}"})
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == 4429
                assert "MAX_WEBSOCKETS_PER_KEY" in closed.value.rcvd.reason
            # Subscriptions are counted over the key's connections.
            first.subscribe("a", MEMORY_ADDED, {"userId": "ann"})
            second.subscribe("b", MEMORY_ADDED, {"userId": "ann"})
            _add(http, "ann", "Ann waters the basil")
            assert _data(first.next_for("a"), "memoryAdded")["userId"] == "ann"
            assert _data(second.next_for("b"), "memoryAdded")["userId"] == "ann"
            first.subscribe("c", MEMORY_ADDED, {"userId": "ann"})
            assert _error_code(first.next_for("c")) == "TOO_MANY_OPEN"
            with live(server, other_key) as others:
                others.subscribe("d", MEMORY_ADDED, {"userId": "ann"})
                _add(http, "ann", "Ann repots the mint")
                assert _data(others.next_for("d"), "memoryAdded")["userId"] == "ann"
            # Completing one frees its place.
            second.send({"id": "b", "type": "complete"})
            second.send({"type": "ping"})  # answered once the complete before it is handled
            assert second.next_for("")["type"] == "pong"
            first.subscribe("e", MEMORY_ADDED, {"userId": "ann"})
            _add(http, "ann", "Ann picks the tomatoes")
            assert _data(first.next_for("e"), "memoryAdded")["userId"] == "ann"
        # Closed connections no longer count: two new ones are fine.
        with live(server, ADMIN_KEY), live(server, ADMIN_KEY):
            pass
