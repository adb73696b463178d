"""A key for user A gets "not found" for anything of user B, and writes nothing there.

One test per query and mutation: every id of B that A could name is tried,
and B's data is checked unchanged afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.api.conftest import ADD_MEMORY, ADD_MESSAGES, CREATE_SESSION, Api, add_memory, seed_user


@dataclass
class World:
    admin: Api
    ann: Api
    bob_session: str
    bob_messages: list[str]
    bob_memory: str
    ann_session: str


@pytest.fixture
def world(api: Api) -> World:
    ann_session, _ = seed_user(api, "ann", ["ann's message"])
    bob_session, bob_messages = seed_user(api, "bob", ["bob's secret message"])
    bob_memory = add_memory(api, "bob", "Bob's secret", bob_messages)
    return World(
        api, api.as_key(api.create_key(["ann"])), bob_session, bob_messages, bob_memory, ann_session
    )


def _bob_unchanged(world: World) -> None:
    data = world.admin.ok(
        """query($s: ID!, $m: ID!) {
             memories(userId: "bob", filter: {includeDeleted: true, includeSuperseded: true}) {
               edges { node { id content deletedAt validTo } } }
             session(id: $s) { messages(first: 50) { edges { node { id } } } }
             memory(id: $m) { importance }
           }""",
        {"s": world.bob_session, "m": world.bob_memory},
    )
    assert [e["node"] for e in data["memories"]["edges"]] == [
        {"id": world.bob_memory, "content": "Bob's secret", "deletedAt": None, "validTo": None}
    ]
    assert [e["node"]["id"] for e in data["session"]["messages"]["edges"]] == world.bob_messages
    assert data["memory"]["importance"] == 0.5


def test_queries_return_null_for_another_tenants_ids(world: World) -> None:
    data = world.ann.ok(
        """query($s: ID!, $msg: ID!, $m: ID!) {
             user(id: "bob") { id }
             session(id: $s) { id }
             message(id: $msg) { id }
             memory(id: $m) { id }
             provenance(id: $m) { root { id } }
             up: provenance(id: $msg, direction: UP) { root { id } }
           }""",
        {"s": world.bob_session, "msg": world.bob_messages[0], "m": world.bob_memory},
    )
    assert data == {
        "user": None,
        "session": None,
        "message": None,
        "memory": None,
        "provenance": None,
        "up": None,
    }


@pytest.mark.parametrize(
    "operation",
    [
        '{ memories(userId: "bob") { edges { cursor } } }',
        '{ search(userId: "bob", query: "secret") { hits { score } } }',
    ],
)
def test_listing_and_searching_another_user_is_not_found(world: World, operation: str) -> None:
    body = world.ann.post(operation)
    assert [e["extensions"]["code"] for e in body["errors"]] == ["NOT_FOUND"]
    assert "secret" not in str(body)


def test_mutations_on_another_tenant_are_not_found_and_write_nothing(world: World) -> None:
    ann = world.ann
    results = [
        ann.ok(CREATE_SESSION, {"userId": "bob"})["createSession"],
        ann.ok(
            ADD_MESSAGES,
            {"sessionId": world.bob_session, "messages": [{"speaker": "x", "content": "x"}]},
        )["addMessages"],
        ann.ok(ADD_MEMORY, {"input": {"userId": "bob", "content": "x"}})["addMemory"],
        ann.ok(
            "mutation($id: ID!) { updateMemory(input: {id: $id, importance: 1.0}) { __typename ... on Error { code } } }",
            {"id": world.bob_memory},
        )["updateMemory"],
        ann.ok(
            'mutation($id: ID!) { updateMemory(input: {id: $id, content: "hacked"}) { __typename ... on Error { code } } }',
            {"id": world.bob_memory},
        )["updateMemory"],
        ann.ok(
            "mutation($id: ID!) { deleteMemory(input: {id: $id, hard: true}) { __typename ... on Error { code } } }",
            {"id": world.bob_memory},
        )["deleteMemory"],
    ]
    assert [r["__typename"] for r in results] == ["NotFoundError"] * len(results)
    assert "secret" not in str(results)
    _bob_unchanged(world)


def test_deriving_from_another_tenants_nodes_is_not_found(world: World) -> None:
    for source in (world.bob_messages[0], world.bob_memory):
        result = world.ann.ok(
            ADD_MEMORY,
            {"input": {"userId": "ann", "content": "stolen", "derivedFrom": [source]}},
        )["addMemory"]
        assert result["__typename"] == "NotFoundError"
    listed = world.admin.ok('{ memories(userId: "ann") { edges { cursor } } }')["memories"]
    assert listed["edges"] == []
    _bob_unchanged(world)


def test_nested_fields_do_not_leak_across_tenants(world: World) -> None:
    data = world.ann.ok(
        "query($s: ID!) { session(id: $s) { messages { edges { node { content } } } } }",
        {"s": world.ann_session},
    )
    assert [e["node"]["content"] for e in data["session"]["messages"]["edges"]] == ["ann's message"]
