"""API keys: every data field needs one, bad keys are refused, admin powers are admin's."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import CREATE_USER, Api, seed_user

ROOT_FIELDS = [
    "{ viewer { keyId } }",
    '{ user(id: "ann") { id } }',
    '{ session(id: "ses_01HZZZZZZZZZZZZZZZZZZZZZZZ") { id } }',
    '{ message(id: "msg_01HZZZZZZZZZZZZZZZZZZZZZZZ") { id } }',
    '{ memUnit(id: "mu_01HZZZZZZZZZZZZZZZZZZZZZZZ") { id } }',
    '{ memory(id: "mem_01HZZZZZZZZZZZZZZZZZZZZZZZ") { id } }',
    '{ memories(userId: "ann") { edges { cursor } } }',
    '{ search(userId: "ann", query: "x") { hits { score } } }',
    '{ provenance(id: "mem_01HZZZZZZZZZZZZZZZZZZZZZZZ") { root { id } } }',
    'mutation { createUser(input: {id: "x", name: "x"}) { __typename } }',
    'mutation { createSession(input: {userId: "x"}) { __typename } }',
    'mutation { addMessages(input: {sessionId: "x", messages: []}) { __typename } }',
    'mutation { addMemory(input: {userId: "x", content: "x"}) { __typename } }',
    'mutation { updateMemory(input: {id: "x"}) { __typename } }',
    'mutation { deleteMemory(input: {id: "x"}) { __typename } }',
    'mutation { createApiKey(input: {name: "x"}) { __typename } }',
    'mutation { revokeApiKey(id: "x") { __typename } }',
]


@pytest.mark.parametrize("operation", ROOT_FIELDS)
def test_every_root_field_needs_a_key(api: Api, operation: str) -> None:
    body = api.as_key(None).post(operation)
    assert body["_status"] == 401  # as a wrong key is
    assert [e["extensions"]["code"] for e in body["errors"]] == ["UNAUTHENTICATED"]
    assert body["data"] is None or set(body["data"].values()) == {None}


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("hg_not-a-key", "unknown or revoked API key"),
        # Longer than any key made: refused before it is hashed or looked up.
        ("hg_" + "x" * 300, "unknown API key"),
    ],
)
def test_an_unknown_key_is_refused_with_401(api: Api, key: str, message: str) -> None:
    body = api.as_key(key).post("{ viewer { keyId } }")
    assert body["_status"] == 401
    assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert body["errors"][0]["message"] == message
    malformed = api.client.post(
        "/graphql", json={"query": "{ viewer { keyId } }"}, headers={"Authorization": "Basic x"}
    )
    assert malformed.status_code == 401


def test_introspection_works_without_a_key(api: Api) -> None:
    data = api.as_key(None).ok("{ __schema { queryType { name } } }")
    assert data["__schema"]["queryType"]["name"] == "Query"


def test_limited_keys_are_made_by_admins_only_and_can_be_revoked(api: Api) -> None:
    seed_user(api, "ann", ["x"])
    ann_key = api.create_key(["ann"])
    ann = api.as_key(ann_key)
    assert ann.ok("{ viewer { admin userIds } }")["viewer"] == {"admin": False, "userIds": ["ann"]}
    forbidden = ann.ok('mutation { createApiKey(input: {name: "x", admin: true}) { __typename } }')
    assert forbidden["createApiKey"]["__typename"] == "ForbiddenError"
    # A key that is not admin must name its users.
    unlimited = api.ok(
        'mutation { createApiKey(input: {name: "x"}) '
        "{ __typename ... on InputError { message field } } }"
    )["createApiKey"]
    assert unlimited == {
        "__typename": "InputError",
        "message": "a key that is not admin needs at least one user id",
        "field": "userIds",
    }
    key_id = ann.ok("{ viewer { keyId } }")["viewer"]["keyId"]
    denied = ann.ok("mutation($id: ID!) { revokeApiKey(id: $id) { __typename } }", {"id": key_id})
    assert denied["revokeApiKey"]["__typename"] == "ForbiddenError"
    revoked = api.ok("mutation($id: ID!) { revokeApiKey(id: $id) { __typename } }", {"id": key_id})
    assert revoked["revokeApiKey"]["__typename"] == "ApiKeyRevoked"
    assert ann.post("{ viewer { keyId } }")["_status"] == 401
    # Revoking is idempotent (a retried call succeeds); a key that never was is NotFound.
    revoke = (
        "mutation($id: ID!) { revokeApiKey(id: $id) { __typename ... on NotFoundError { id } } }"
    )
    assert api.ok(revoke, {"id": key_id})["revokeApiKey"] == {"__typename": "ApiKeyRevoked"}
    never = "key_01HZZZZZZZZZZZZZZZZZZZZZZZ"
    assert api.ok(revoke, {"id": never})["revokeApiKey"] == {
        "__typename": "NotFoundError",
        "id": never,
    }


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        # an admin key sees everyone: users stored on it would say otherwise
        ({"name": "x", "admin": True, "userIds": ["ann"]}, "userIds"),
        # `keys list` prints one key a line
        ({"name": "agent\nkey_FORGED\tactive\tadmin", "userIds": ["ann"]}, "name"),
        ({"name": "agent\x1b[2J", "userIds": ["ann"]}, "name"),
    ],
)
def test_a_key_that_would_mislead_is_refused(api: Api, fields: dict[str, Any], field: str) -> None:
    seed_user(api, "ann", ["x"])
    created = api.ok(
        "mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) "
        "{ __typename ... on InputError { field } } }",
        {"input": fields},
    )["createApiKey"]
    assert created == {"__typename": "InputError", "field": field}


def test_a_limited_key_creates_only_its_own_users(api: Api) -> None:
    key = api.create_key(["ann"])
    ann = api.as_key(key)
    assert ann.ok(CREATE_USER, {"id": "ann", "name": "Ann"})["createUser"]["__typename"] == (
        "UserCreated"
    )
    other = ann.ok(CREATE_USER, {"id": "bob", "name": "Bob"})["createUser"]
    assert other["__typename"] == "ForbiddenError"
    assert api.ok('{ user(id: "bob") { id } }')["user"] is None


def test_an_empty_bearer_is_anonymous_not_refused(api: Api) -> None:
    # GraphiQL's header template is "Bearer " until a key is pasted: the schema
    # must still load, and data fields must still say what is missing.
    empty = api.client.post(
        "/graphql",
        json={"query": "{ __schema { queryType { name } } viewer { keyId } }"},
        headers={"Authorization": "Bearer "},
    )
    # Asking for data without a key is refused as a wrong key is: 401.
    assert empty.status_code == 401
    assert empty.headers["www-authenticate"] == "Bearer"
    assert empty.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
