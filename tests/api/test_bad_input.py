"""Every bad input gets a clear GraphQL error and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import ADD_MEMORY, ADD_MESSAGES, CREATE_USER, Api, add_memory, seed_user


def _counts(api: Api) -> tuple[int, int]:
    data = api.ok(
        """{ memories(userId: "ann", first: 200, filter: {includeDeleted: true, includeSuperseded: true}) { edges { cursor } }
             user(id: "ann") { sessions(first: 50) { edges { node { messages(first: 200) { edges { cursor } } } } } } }"""
    )
    messages = sum(len(s["node"]["messages"]["edges"]) for s in data["user"]["sessions"]["edges"])
    return len(data["memories"]["edges"]), messages


@pytest.fixture
def ann(api: Api) -> dict[str, Any]:
    session, messages = seed_user(api, "ann", ["hello"])
    memory = add_memory(api, "ann", "Ann likes tea", messages)
    return {"session": session, "messages": messages, "memory": memory}


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ('{ user(id: "bad id with spaces") { id } }', "id"),
        ('{ user(id: "") { id } }', "id"),
        ('{ session(id: "mem_01HZZZZZZZZZZZZZZZZZZZZZZZ") { id } }', "id"),
        ('{ memory(id: "mem_; MATCH (n) DETACH DELETE n") { id } }', "id"),
        ('{ message(id: "not-an-id") { id } }', "id"),
        ('{ memories(userId: "ann", first: 0) { edges { cursor } } }', "first"),
        ('{ memories(userId: "ann", first: 100000) { edges { cursor } } }', "first"),
        ('{ memories(userId: "ann", after: "garbage") { edges { cursor } } }', "after"),
        ('{ memories(userId: "ann", after: "%s") { edges { cursor } } }' % ("e" * 600), "after"),
        # A cursor that decodes, to {"u": 5}: a number where a user id goes.
        ('{ users(after: "eyJ1IjogNX0") { edges { cursor } } }', "after"),
        ('{ search(userId: "ann", query: "x", topK: -1) { hits { score } } }', "topK"),
        ('{ search(userId: "ann", query: "x", topK: 1000000) { hits { score } } }', "topK"),
        ('{ search(userId: "ann", query: "   ") { hits { score } } }', "query"),
        ('{ provenance(id: "usr_1", depth: 2) { root { id } } }', "id"),
        (
            '{ provenance(id: "mem_01HZZZZZZZZZZZZZZZZZZZZZZZ", depth: 99) { root { id } } }',
            "depth",
        ),
    ],
)
def test_bad_query_arguments_are_clear_errors(
    api: Api, ann: dict[str, Any], query: str, field: str
) -> None:
    body = api.post(query)
    [error] = body["errors"]
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
    assert field in error["message"] or field == "after"


def test_oversized_search_query_is_refused(api: Api, ann: dict[str, Any]) -> None:
    body = api.post(
        'query($q: String!) { search(userId: "ann", query: $q) { hits { score } } }',
        {"q": "x" * 5000},
    )
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


@pytest.mark.parametrize(
    ("variables", "field"),
    [
        ({"content": "x" * 8001}, "content"),
        ({"content": "   "}, "content"),
        ({"content": "x", "importance": 1.5}, "importance"),
        ({"content": "x", "importance": -0.1}, "importance"),
        ({"content": "x", "domain": "Not A Domain!"}, "domain"),
        ({"content": "x", "kind": "REFLECTION"}, "kind"),
        ({"content": "x", "derivedFrom": ["usr_bad"]}, "derivedFrom[0]"),
        ({"content": "x", "validFrom": "2024-01-01T00:00:00"}, "validFrom"),
        ({"content": "x", "sessionId": "nope"}, "sessionId"),
    ],
)
def test_bad_memories_are_input_errors_and_write_nothing(
    api: Api, ann: dict[str, Any], variables: dict[str, Any], field: str
) -> None:
    before = _counts(api)
    result = api.ok(ADD_MEMORY, {"input": {"userId": "ann", **variables}})["addMemory"]
    assert result["__typename"] == "InputError", result
    assert result["field"] == field
    assert _counts(api) == before


@pytest.mark.parametrize(
    ("messages", "field"),
    [
        ([], "messages"),
        ([{"speaker": "ann", "content": "x" * 8001}], "messages[0].content"),
        ([{"speaker": "", "content": "x"}], "messages[0].speaker"),
        (
            [{"speaker": "ann", "content": "ok"}, {"speaker": "ann", "content": ""}],
            "messages[1].content",
        ),
        ([{"speaker": "ann", "content": "x", "ts": "2024-01-01T00:00:00"}], "messages[0].ts"),
        ([{"speaker": "ann", "content": "x", "clientId": "has space"}], "messages[0].clientId"),
        ([{"speaker": "ann", "content": "x", "clientId": "abc\n"}], "messages[0].clientId"),
        ([{"speaker": "ann", "content": "x"}] * 501, "messages"),
    ],
)
def test_bad_messages_are_input_errors_and_write_nothing(
    api: Api, ann: dict[str, Any], messages: list[dict[str, Any]], field: str
) -> None:
    before = _counts(api)
    result = api.ok(ADD_MESSAGES, {"sessionId": ann["session"], "messages": messages})[
        "addMessages"
    ]
    assert (result["__typename"], result["code"], result["field"]) == (
        "InputError",
        "BAD_USER_INPUT",
        field,
    )
    assert _counts(api) == before


@pytest.mark.parametrize(
    "variables",
    [
        {"id": "ann", "name": 42},
        {"id": None, "name": "x"},
        {"name": "x"},
    ],
)
def test_wrong_types_are_rejected_by_graphql_before_anything_runs(
    api: Api, ann: dict[str, Any], variables: dict[str, Any]
) -> None:
    body = api.post(CREATE_USER, variables)
    assert body["data"] is None
    assert body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"


def test_bad_updates_change_nothing(api: Api, ann: dict[str, Any]) -> None:
    update = """mutation($input: UpdateMemoryInput!) { updateMemory(input: $input) {
                  __typename ... on InputError { field } ... on NotFoundError { id } } }"""
    bad = [
        ({"id": ann["memory"], "importance": 2.0}, "InputError"),
        ({"id": ann["memory"], "content": "x" * 9000}, "InputError"),
        ({"id": ann["memory"], "domain": "BAD"}, "InputError"),
        ({"id": "mem_01HZZZZZZZZZZZZZZZZZZZZZZZ", "importance": 0.2}, "NotFoundError"),
        ({"id": "nonsense", "importance": 0.2}, "InputError"),
    ]
    for variables, expected in bad:
        assert api.ok(update, {"input": variables})["updateMemory"]["__typename"] == expected
    kept = api.ok(
        "query($id: ID!) { memory(id: $id) { content importance domain } }", {"id": ann["memory"]}
    )
    assert kept["memory"] == {"content": "Ann likes tea", "importance": 0.5, "domain": None}


def test_duplicate_user_is_a_conflict(api: Api, ann: dict[str, Any]) -> None:
    result = api.ok(CREATE_USER, {"id": "ann", "name": "Other"})["createUser"]
    assert result == {
        "__typename": "ConflictError",
        "message": "user 'ann' already exists",
        "code": "CONFLICT",
    }
    assert api.ok('{ user(id: "ann") { name } }')["user"]["name"] == "Ann"
