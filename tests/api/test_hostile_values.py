"""Values a JSON parser accepts but no store can hold: refused by name, nothing written.

Each case once answered INTERNAL with a traceback in the log: lone UTF-16
surrogates (as a JSON escape or as the UTF-8 bytes ``ED A0 80``), a time that
does not exist in UTC, forged cursors with huge integers, and a validity
period that ends before it starts.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.api.conftest import ADD_MEMORY, ADD_MESSAGES, Api, add_memory, seed_user

# It found a crash only the Neo4j 2026 run showed (dates at the calendar's ends).
pytestmark = pytest.mark.every_server("values at a store's limits: each server has its own")

MEMORIZE = """
mutation($u: [ID!]!, $s: ID!, $m: [MessageInput!]!) {
  memorize(input: {userIds: $u, sessionId: $s, messages: $m}) {
    __typename ... on InputError { field } ... on Error { message code }
  }
}"""


def _counts(api: Api) -> tuple[int, int]:
    data = api.ok(
        """{ memories(userId: "ann", first: 200, filter: {includeDeleted: true,
               includeSuperseded: true}) { edges { cursor } }
             user(id: "ann") { sessions(first: 50) { edges { node {
               messages(first: 200) { edges { cursor } } } } } } }"""
    )
    messages = sum(len(s["node"]["messages"]["edges"]) for s in data["user"]["sessions"]["edges"])
    return len(data["memories"]["edges"]), messages


def _send(api: Api, body: bytes) -> tuple[int, dict[str, Any]]:
    response = api.client.post(
        "/graphql",
        content=body,
        headers={"Authorization": f"Bearer {api.key}", "Content-Type": "application/json"},
    )
    answer: dict[str, Any] = response.json()
    return response.status_code, answer


def _post(api: Api, query: str, variables: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    # json.dumps escapes a lone surrogate as \ud800 (ensure_ascii), as a client would.
    return _send(api, json.dumps({"query": query, "variables": variables}).encode())


@pytest.fixture
def ann(api: Api) -> dict[str, Any]:
    session, messages = seed_user(api, "ann", ["hello", "I like tea"])
    memory = add_memory(api, "ann", "Ann likes tea", messages)
    return {"session": session, "messages": messages, "memory": memory}


LONE = "tea \ud800 time"


def _cases(ann: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    session = ann["session"]
    return [
        (
            ADD_MESSAGES,
            {"sessionId": session, "messages": [{"speaker": "ann", "content": LONE}]},
            "input.messages[0].content",
        ),
        (
            ADD_MESSAGES,
            {"sessionId": session, "messages": [{"speaker": LONE, "content": "x"}]},
            "input.messages[0].speaker",
        ),
        (
            'mutation($t: String!) { createSession(input: {userId: "ann", title: $t}) '
            "{ __typename } }",
            {"t": LONE},
            "input.title",
        ),
        (
            'query($q: String!) { search(userId: "ann", query: $q) { hits { score } } }',
            {"q": LONE},
            "query",
        ),
        (ADD_MEMORY, {"input": {"userId": "ann", "content": LONE}}, "input.content"),
        (
            "mutation($i: ID!, $c: String) { updateMemory(input: {id: $i, content: $c}) "
            "{ __typename } }",
            {"i": ann["memory"], "c": LONE},
            "input.content",
        ),
        (
            MEMORIZE,
            {"u": ["ann"], "s": session, "m": [{"speaker": "ann", "content": LONE}]},
            "input.messages[0].content",
        ),
        (
            'mutation($n: String!) { createUser(input: {id: "zed", name: $n}) { __typename } }',
            {"n": LONE},
            "input.name",
        ),
    ]


@pytest.mark.parametrize("case", range(8))
def test_a_lone_surrogate_in_any_string_argument_is_bad_input_naming_the_field(
    api: Api, ann: dict[str, Any], case: int
) -> None:
    query, variables, field = _cases(ann)[case]
    before = _counts(api)
    status, body = _post(api, query, variables)
    assert status == 200, body
    [error] = body["errors"]
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
    assert "U+D800" in error["message"]
    assert _counts(api) == before


def test_the_utf8_bytes_of_a_surrogate_in_a_body_are_bad_input(
    api: Api, ann: dict[str, Any]
) -> None:
    before = _counts(api)
    body = (
        json.dumps(
            {
                "query": ADD_MESSAGES,
                "variables": {
                    "sessionId": ann["session"],
                    "messages": [{"speaker": "ann", "content": "@@"}],
                },
            }
        )
        .encode()
        .replace(b"@@", b"tea \xed\xa0\x80 time")
    )
    status, answer = _send(api, body)
    assert status == 200
    assert answer["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "field": "input.messages[0].content",
    }
    # In the document or the operation name: a client error, never INTERNAL.
    for raw in (
        b'{"query": "{ viewer { keyId } } # \xed\xa0\x80"}',
        b'{"query": "{ viewer { keyId } }", "operationName": "\\udc00"}',
    ):
        status, answer = _send(api, raw)
        assert status == 400, answer
        assert answer["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert _counts(api) == before


def test_a_time_that_does_not_exist_in_utc_is_bad_input(api: Api, ann: dict[str, Any]) -> None:
    before = _counts(api)
    late = "9999-12-31T23:59:59-14:00"
    added = api.ok(
        ADD_MESSAGES,
        {"sessionId": ann["session"], "messages": [{"speaker": "ann", "content": "x", "ts": late}]},
    )["addMessages"]
    assert (added["__typename"], added["field"]) == ("InputError", "messages[0].ts")
    memory = api.ok(ADD_MEMORY, {"input": {"userId": "ann", "content": "x", "validTo": late}})
    assert memory["addMemory"]["field"] == "validTo"
    body = api.post(
        'query($t: DateTime!) { memories(userId: "ann", filter: {createdAfter: $t}) '
        "{ edges { cursor } } }",
        {"t": late},
    )
    assert body["errors"][0]["extensions"] == {
        "code": "BAD_USER_INPUT",
        "field": "filter.createdAfter",
    }
    assert _counts(api) == before


def test_a_validity_that_ends_before_it_starts_is_refused(api: Api, ann: dict[str, Any]) -> None:
    before = _counts(api)
    result = api.ok(
        ADD_MEMORY,
        {
            "input": {
                "userId": "ann",
                "content": "x",
                "validFrom": "2024-05-01T00:00:00Z",
                "validTo": "2024-04-01T00:00:00Z",
            }
        },
    )["addMemory"]
    assert (result["__typename"], result["field"]) == ("InputError", "validTo")
    assert _counts(api) == before


def _cursor(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        {"s": 2**63},
        {"s": -(2**63) - 1},
        {"s": 10**40},
        {"t": "9999-12-31T23:59:59-14:00", "i": "mem_x"},
        {"t": "2024-01-01T00:00:00+00:00", "i": "\ud800"},
        {"t": "2024-01-01T00:00:00+00:00", "i": 2**70},
    ],
)
def test_forged_cursors_are_bad_input(
    api: Api, ann: dict[str, Any], cursor: dict[str, Any]
) -> None:
    after = _cursor(cursor)
    queries = [
        "query($a: String, $s: ID!) { session(id: $s) { messages(first: 5, after: $a) "
        "{ edges { cursor } } } }",
        'query($a: String) { memories(userId: "ann", first: 5, after: $a) { edges { cursor } } }',
        'query($a: String) { user(id: "ann") { sessions(first: 5, after: $a) '
        "{ edges { cursor } } } }",
    ]
    for query in queries:
        variables = {"a": after, "s": ann["session"]} if "$s" in query else {"a": after}
        body = api.post(query, variables)
        codes = [e["extensions"]["code"] for e in body.get("errors") or []]
        assert codes == ["BAD_USER_INPUT"], (query, body)


def test_dates_at_the_calendars_ends_are_remembered_and_searched(
    api: Api, ann: dict[str, Any]
) -> None:
    # These once answered INTERNAL: the period of "9999年" or of "tomorrow"
    # said on 31 December 9999 runs past the last year a datetime holds.
    last = "9999-12-31T12:00:00Z"
    messages = [
        {"speaker": "ann", "content": "See you tomorrow, on 9999-12-31 or so", "ts": last},
        {"speaker": "ann", "content": "The year 0001-01-01 was long ago", "ts": last},
    ]
    done = api.ok(MEMORIZE, {"u": ["ann"], "s": ann["session"], "m": messages})["memorize"]
    assert done["__typename"] == "Memorized", done
    for query in ("what happens in 9999年?", "December 31, 9999", "next year", "0001-01-01"):
        found = api.ok(
            'query($q: String!) { search(userId: "ann", query: $q) { hits { score } } }',
            {"q": query},
        )
        assert isinstance(found["search"]["hits"], list)
