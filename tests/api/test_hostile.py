"""Hostile input at every operation: no server error, no write when refused, no leak.

Hypothesis throws random and adversarial GraphQL at the API with the key of
Eve, a tenant who may see only her own user: every root query and mutation
with hostile variables (huge strings, unicode edge cases, Cypher-looking
text, Ann's ids, out-of-range numbers, wrong types), plus raw documents
(garbage, deep nesting, alias floods) and malformed request bodies. After
each request:

- no 5xx and no INTERNAL error (0 server errors);
- a refused request (an error, or an error payload) changed nothing: the
  graph's node and edge counts are the same (0 writes);
- Ann's data is untouched and nothing of hers that the request did not
  itself contain appears in the answer (0 leaks).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from tests.api.conftest import ADMIN_KEY, Api, add_memory, make_settings, seed_user
from tests.graphs import GraphBackend

SECRET = "Ann's vault code is 4711-ZEBRA"

HOSTILE_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=200),
    st.sampled_from(
        [
            "",
            " ",
            "\x00",
            "\u202e\u200b\ufeff",
            "🧠" * 50,
            "MATCH (n) DETACH DELETE n",
            "'}) MATCH (m:Memory) RETURN m //",
            "$user_id",
            "ann",
            "eve",
            "*",
            "../../etc/passwd",
            "<script>alert(1)</script>",
            "x" * 9000,
            "我喜欢喝咖啡" * 500,
        ]
    ),
)
NUMBERS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, -1, 1, 10**12, 0.5, 1.5, -0.0]),
)


def _world(api: Api) -> dict[str, Any]:
    """Ann with a secret memory, Eve with a memory of her own, and Eve's key."""
    ann_session, ann_messages = seed_user(api, "ann", ["the vault code is 4711-ZEBRA"])
    ann_memory = add_memory(api, "ann", SECRET, ann_messages)
    eve_session, eve_messages = seed_user(api, "eve", ["I like climbing"])
    eve_memory = add_memory(api, "eve", "Eve likes climbing", eve_messages)
    return {
        "eve_key": api.create_key(["eve"]),
        "eve_session": eve_session,
        "eve_memory": eve_memory,
        "ann_ids": [ann_session, ann_memory, *ann_messages],
        "ids": [ann_session, ann_memory, *ann_messages, eve_session, eve_memory, *eve_messages],
    }


@pytest.fixture(scope="module")
def hostile_api(
    graph_backend: GraphBackend,
    embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Api, dict[str, Any]]]:
    """One app for all examples (rate limit off: every request reaches the schema)."""
    with graph_backend.database() as graph_db:
        data_dir = Path(tmp_path_factory.mktemp("hostile"))
        settings = make_settings(graph_db, data_dir, rate_limit_per_s=0)
        app = create_app(settings, embedder=embedder, **graph_db.start)
        with TestClient(app) as client:
            api = Api(client, ADMIN_KEY)
            yield api, _world(api)


def _ids(world: dict[str, Any]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(world["ids"]),
        st.sampled_from(["mem_01J00000000000000000000000", "usr_1", "job_x", "ann", "eve"]),
        HOSTILE_TEXT,
    )


def _operations(world: dict[str, Any]) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """Every root field, with hostile variables of the declared (or a wrong) type."""
    ids, text, number = _ids(world), HOSTILE_TEXT, NUMBERS
    anything: st.SearchStrategy[Any] = st.one_of(text, number, st.none(), st.booleans())
    maybe = st.one_of(ids, anything)
    message = st.fixed_dictionaries({"speaker": text, "content": text})
    cases: list[tuple[str, st.SearchStrategy[dict[str, Any]]]] = [
        ("query($i: ID!) { user(id: $i) { id name } }", st.fixed_dictionaries({"i": maybe})),
        (
            "query($i: ID!) { session(id: $i) { id title } }",
            st.fixed_dictionaries({"i": maybe}),
        ),
        ("query($i: ID!) { job(id: $i) { id status } }", st.fixed_dictionaries({"i": maybe})),
        ("query($i: ID!) { message(id: $i) { id content } }", st.fixed_dictionaries({"i": ids})),
        ("query($i: ID!) { memUnit(id: $i) { id summary } }", st.fixed_dictionaries({"i": ids})),
        ("query($i: ID!) { memory(id: $i) { id content } }", st.fixed_dictionaries({"i": ids})),
        (
            "query($u: ID!, $n: Int!, $a: String) "
            "{ memories(userId: $u, first: $n, after: $a) { edges { node { id content } } } }",
            st.fixed_dictionaries({"u": ids, "n": number, "a": st.one_of(st.none(), text)}),
        ),
        (
            "query($u: ID!, $q: String!, $k: Int!, $c: Int!, $r: Float) { search(userId: $u, "
            "query: $q, topK: $k, candidates: $c, radius: $r) { hits { memory { content } } } }",
            st.fixed_dictionaries({"u": ids, "q": text, "k": number, "c": number, "r": number}),
        ),
        (
            "query($i: ID!, $d: Int!) { provenance(id: $i, depth: $d) "
            "{ nodes { id } edges { source target type } } }",
            st.fixed_dictionaries({"i": ids, "d": number}),
        ),
        (
            "mutation($i: ID!, $n: String!) { createUser(input: {id: $i, name: $n}) "
            "{ __typename } }",
            st.fixed_dictionaries({"i": maybe, "n": text}),
        ),
        (
            "mutation($u: ID!, $t: String!) { createSession(input: {userId: $u, title: $t}) "
            "{ __typename } }",
            st.fixed_dictionaries({"u": ids, "t": text}),
        ),
        (
            "mutation($s: ID!, $m: [MessageInput!]!) "
            "{ addMessages(input: {sessionId: $s, messages: $m}) { __typename } }",
            st.fixed_dictionaries({"s": ids, "m": st.lists(message, max_size=3)}),
        ),
        (
            "mutation($u: [ID!]!, $s: ID!, $m: [MessageInput!]!) { memorize(input: "
            "{userIds: $u, sessionId: $s, messages: $m}) { __typename } }",
            st.fixed_dictionaries(
                {"u": st.lists(ids, max_size=3), "s": ids, "m": st.lists(message, max_size=3)}
            ),
        ),
        (
            "mutation($u: ID!, $o: [MemoryOpInput!]!) "
            "{ applyMemoryOps(input: {userId: $u, ops: $o}) { __typename } }",
            st.fixed_dictionaries(
                {
                    "u": ids,
                    "o": st.lists(
                        st.fixed_dictionaries(
                            {
                                "op": st.sampled_from(["ADD", "UPDATE", "BOOST", "DELETE", "SKIP"]),
                                "id": st.one_of(st.none(), ids),
                                "content": st.one_of(st.none(), text),
                            }
                        ),
                        max_size=3,
                    ),
                }
            ),
        ),
        (
            "mutation($u: ID!) { reflect(userId: $u, force: true) { __typename } }",
            st.fixed_dictionaries({"u": ids}),
        ),
        (
            "mutation($u: ID!, $t: Float, $c: Int, $m: [ID!]) { forget(input: {userId: $u, "
            "policy: HARD_DELETE, strategy: CAPACITY_BASED, threshold: $t, maxCapacity: $c, "
            "memoryIds: $m}) { __typename } }",
            st.fixed_dictionaries(
                {
                    "u": ids,
                    "t": st.one_of(st.none(), number),
                    "c": st.one_of(st.none(), number),
                    "m": st.one_of(st.none(), st.lists(ids, max_size=3)),
                }
            ),
        ),
        (
            "mutation($u: ID!, $c: String!, $i: Float!, $d: [ID!]!) { addMemory(input: "
            "{userId: $u, content: $c, importance: $i, derivedFrom: $d}) { __typename } }",
            st.fixed_dictionaries(
                {"u": ids, "c": text, "i": number, "d": st.lists(ids, max_size=3)}
            ),
        ),
        (
            "mutation($i: ID!, $c: String) { updateMemory(input: {id: $i, content: $c}) "
            "{ __typename } }",
            st.fixed_dictionaries({"i": ids, "c": st.one_of(st.none(), text)}),
        ),
        (
            "mutation($i: ID!) { deleteMemory(input: {id: $i, hard: true}) { __typename } }",
            st.fixed_dictionaries({"i": ids}),
        ),
        (
            "mutation($n: String!, $u: [ID!]!) { createApiKey(input: "
            "{name: $n, admin: true, userIds: $u}) { __typename } }",
            st.fixed_dictionaries({"n": text, "u": st.lists(ids, max_size=3)}),
        ),
        (
            "mutation($i: ID!) { revokeApiKey(id: $i) { __typename } }",
            st.fixed_dictionaries({"i": maybe}),
        ),
        (
            "mutation($i: ID!) { deleteWithProvenance(input: {id: $i, dryRun: false}) "
            "{ __typename } }",
            st.fixed_dictionaries({"i": ids}),
        ),
    ]
    return st.one_of(
        *(st.tuples(st.just(doc), variables) for doc, variables in cases),
        st.tuples(_raw_documents(), st.just({})),
    )


def _raw_documents() -> st.SearchStrategy[str]:
    depth = st.integers(min_value=1, max_value=400)
    return st.one_of(
        HOSTILE_TEXT,
        depth.map(lambda n: "{ viewer " + "{ keyId " * n + "}" * (n + 1)),
        depth.map(lambda n: "{ " + " ".join(f"a{i}: viewer {{ keyId }}" for i in range(n)) + " }"),
        depth.map(lambda n: "{" * n + "}" * n),
        st.just("{ __schema { types { name fields { name type { name ofType { name } } } } } }"),
        st.just("subscription { viewer { keyId } }"),
    )


def _counts(api: Api) -> tuple[dict[str, int], dict[str, int], str]:
    """Node counts by label, edge counts by type, and Ann's visible state."""
    runtime = api.client.app.state.runtime  # type: ignore[attr-defined]
    assert api.client.portal is not None
    nodes, edges = api.client.portal.call(runtime.connection.store.stats.shape)
    ann = api.ok(
        '{ memories(userId: "ann", first: 50, filter: {includeDeleted: true, '
        "includeSuperseded: true}) { edges { node { id content importance level } } } }"
    )
    return nodes, edges, json.dumps(ann, sort_keys=True)


def _examples(count: int) -> settings:
    """Hypothesis's settings for ``count`` examples against ``hostile_api``: no deadline,
    and neither the fixture's health check nor the slow data one."""
    return settings(
        max_examples=count,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


def _refused(response_status: int, body: Any) -> bool:
    if response_status != 200 or not isinstance(body, dict) or body.get("errors"):
        return True
    payloads = (body.get("data") or {}).values()
    return any(
        isinstance(p, dict) and str(p.get("__typename", "")).endswith("Error") for p in payloads
    )


@pytest.mark.slow
@_examples(300)
@given(data=st.data())
def test_hostile_graphql_causes_no_server_error_no_refused_write_and_no_leak(
    hostile_api: tuple[Api, dict[str, Any]], data: st.DataObject
) -> None:
    api, world = hostile_api
    document, variables = data.draw(_operations(world))
    key = data.draw(st.sampled_from([world["eve_key"], None, "hg_not-a-real-key"]))
    before = _counts(api)
    sent = json.dumps({"query": document, "variables": variables}, ensure_ascii=False)
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    response = api.client.post("/graphql", content=sent.encode(), headers=headers)
    assert response.status_code < 500, response.text
    body = response.json()
    codes = [e.get("extensions", {}).get("code") for e in body.get("errors") or []]
    assert "INTERNAL" not in codes, body
    runtime = api.client.app.state.runtime  # type: ignore[attr-defined]
    assert api.client.portal is not None
    api.client.portal.call(runtime.queue.drain)  # jobs an accepted request queued
    after = _counts(api)
    if _refused(response.status_code, body):
        assert after == before, (document, variables, body)
    assert after[2] == before[2], "Ann's data changed"
    for secret in [SECRET, "4711-ZEBRA", *world["ann_ids"]]:
        assert secret not in response.text or secret in sent, (secret, body)


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b'{"query": NaN}',
        b'{"query": 1}',
        b'{"query": "{ viewer { keyId } }", "variables": "x"}',
        b"[" * 10000,
        b'{"query": "' + b"\xff\xfe" * 10 + b'"}',
    ],
)
def test_malformed_bodies_are_client_errors(
    hostile_api: tuple[Api, dict[str, Any]], raw: bytes
) -> None:
    api, world = hostile_api
    response = api.client.post(
        "/graphql",
        content=raw,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {world['eve_key']}"},
    )
    assert 400 <= response.status_code < 500, (raw[:40], response.status_code, response.text)


# Classes of value a JSON parser accepts but no store can hold. Each class is
# thrown at every argument of its type; before the fixes, each reached INTERNAL.
SURROGATE_TEXT = st.one_of(
    st.text(alphabet=st.characters(categories=["Cs"]), min_size=1, max_size=3),
    st.builds(
        lambda a, s, b: a + s + b,
        st.text(max_size=10),
        st.characters(categories=["Cs"]),
        st.text(max_size=10),
    ),
)
EDGE_TIMES = st.one_of(
    st.sampled_from(
        [
            "9999-12-31T23:59:59-14:00",
            "9999-12-31T23:59:59-00:01",
            "0001-01-01T00:00:00+14:00",
            "0001-01-01T00:00:00+00:01",
            "9999-12-31T23:59:59.999999+00:00",
            "2024-02-30T00:00:00Z",
            "2024-01-01T00:00:00",
            "2024-01-01",
            "",
        ]
    ),
    st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
)


def _forged_cursor(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


FORGED_CURSORS = st.one_of(
    st.fixed_dictionaries(
        {"s": st.one_of(st.integers(), st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**40]))}
    ).map(_forged_cursor),
    st.fixed_dictionaries(
        {"t": EDGE_TIMES, "i": st.one_of(st.text(max_size=80), st.integers(), SURROGATE_TEXT)}
    ).map(_forged_cursor),
    st.text(max_size=60),
)


def _as(*names: str) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The variables of an operation that sends the value as each of ``names``."""
    return lambda world, value: dict.fromkeys(names, value)


_STRING_OPS = [
    (
        "mutation($s: ID!, $m: [MessageInput!]!) "
        "{ addMessages(input: {sessionId: $s, messages: $m}) { __typename } }",
        lambda w, v: {"s": w["eve_session"], "m": [{"speaker": v, "content": v}]},
    ),
    (
        'mutation($t: String!) { createSession(input: {userId: "eve", title: $t}) { __typename } }',
        _as("t"),
    ),
    (
        'query($q: String!) { search(userId: "eve", query: $q) { hits { score } } }',
        _as("q"),
    ),
    (
        'mutation($c: String!) { addMemory(input: {userId: "eve", content: $c}) { __typename } }',
        _as("c"),
    ),
    (
        "mutation($i: ID!, $c: String) { updateMemory(input: {id: $i, content: $c}) "
        "{ __typename } }",
        lambda w, v: {"i": w["eve_memory"], "c": v},
    ),
    (
        "mutation($u: [ID!]!, $s: ID!, $m: [MessageInput!]!) { memorize(input: "
        "{userIds: $u, sessionId: $s, messages: $m}) { __typename } }",
        lambda w, v: {"u": ["eve"], "s": w["eve_session"], "m": [{"speaker": "eve", "content": v}]},
    ),
    ("query($i: ID!) { memory(id: $i) { id } }", _as("i")),
    (
        'query($d: String) { memories(userId: "eve", filter: {domain: $d}) { edges { cursor } } }',
        _as("d"),
    ),
]
_TIME_OPS = [
    (
        "mutation($s: ID!, $t: DateTime) { addMessages(input: {sessionId: $s, messages: "
        '[{speaker: "eve", content: "x", ts: $t}]}) { __typename } }',
        lambda w, v: {"s": w["eve_session"], "t": v},
    ),
    (
        "mutation($f: DateTime, $t: DateTime) { addMemory(input: "
        '{userId: "eve", content: "x", validFrom: $f, validTo: $t}) { __typename } }',
        _as("f", "t"),
    ),
    (
        'query($a: DateTime, $b: DateTime) { memories(userId: "eve", filter: '
        "{createdAfter: $a, createdBefore: $b}) { edges { cursor } } }",
        _as("a", "b"),
    ),
    (
        'query($a: DateTime) { search(userId: "eve", query: "x", filter: {createdAfter: $a}) '
        "{ hits { score } } }",
        _as("a"),
    ),
]
_CURSOR_OPS = [
    (
        'query($a: String) { memories(userId: "eve", first: 5, after: $a) { edges { cursor } } }',
        _as("a"),
    ),
    (
        "query($s: ID!, $a: String) { session(id: $s) { messages(first: 5, after: $a) "
        "{ edges { cursor } } } }",
        lambda w, v: {"s": w["eve_session"], "a": v},
    ),
    (
        'query($a: String) { user(id: "eve") { sessions(first: 5, after: $a) '
        "{ edges { cursor } } } }",
        _as("a"),
    ),
]
VALUE_CLASSES: dict[str, tuple[st.SearchStrategy[Any], list[Any]]] = {
    "surrogates": (SURROGATE_TEXT, _STRING_OPS),
    "datetimes": (EDGE_TIMES, _TIME_OPS),
    "cursors": (FORGED_CURSORS, _CURSOR_OPS),
}


@pytest.mark.slow
@pytest.mark.parametrize("value_class", sorted(VALUE_CLASSES))
@_examples(150)
@given(data=st.data())
def test_each_class_of_unstorable_value_is_refused_as_bad_input(
    hostile_api: tuple[Api, dict[str, Any]], value_class: str, data: st.DataObject
) -> None:
    api, world = hostile_api
    values, operations = VALUE_CLASSES[value_class]
    document, make = data.draw(st.sampled_from(operations))
    variables = make(world, data.draw(values))
    eve = api.as_key(world["eve_key"])
    before = _counts(api)
    sent = json.dumps({"query": document, "variables": variables}).encode()
    response = eve.client.post(
        "/graphql",
        content=sent,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {eve.key}"},
    )
    assert response.status_code < 500, response.text
    body = response.json()
    codes = [e.get("extensions", {}).get("code") for e in body.get("errors") or []]
    assert "INTERNAL" not in codes, (variables, body)
    runtime = api.client.app.state.runtime  # type: ignore[attr-defined]
    assert api.client.portal is not None
    api.client.portal.call(runtime.queue.drain)
    if _refused(response.status_code, body):
        assert _counts(api) == before, (document, variables, body)
