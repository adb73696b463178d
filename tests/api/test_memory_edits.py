"""addMemory and updateMemory on the paths the other API tests leave out.

In-place edits of every field, an edit that changes nothing, edits of a
memory that is no longer current, a memory filed under another user's
session, and memories derived from MemUnits.
"""

from __future__ import annotations

from typing import Any

from tests.api.conftest import ADD_MEMORY, ENDED, Api, add_memory, seed_user

UPDATE = """
mutation($input: UpdateMemoryInput!) {
  updateMemory(input: $input) {
    __typename
    ... on MemoryPayload { memory { id } }
    ... on InputError { message field }
    ... on Error { message code }
  }
}"""

MEMORY = """
query($id: ID!) {
  memory(id: $id) {
    id content importance category domain verified deletedAt validTo
    derivedFrom { __typename id }
  }
}"""

ALL_OF_ANN = """
{ memories(userId: "ann", first: 100,
           filter: {includeSuperseded: true, includeDeleted: true, includeConsolidated: true}) {
    edges { node { id content } } } }"""

MEMORIZE = """
mutation($input: MemorizeInput!) {
  memorize(input: $input) { __typename ... on Error { message } }
}"""


def _memory(api: Api, memory_id: str) -> dict[str, Any]:
    memory: dict[str, Any] = api.ok(MEMORY, {"id": memory_id})["memory"]
    return memory


def _update(api: Api, **fields: Any) -> dict[str, Any]:
    result: dict[str, Any] = api.ok(UPDATE, {"input": fields})["updateMemory"]
    return result


def _all_of_ann(api: Api) -> list[dict[str, Any]]:
    return [e["node"] for e in api.ok(ALL_OF_ANN)["memories"]["edges"]]


def test_an_edit_without_new_content_changes_the_memory_in_place(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    memory_id = add_memory(api, "ann", "Ann likes tea")
    edited = _update(
        api, id=memory_id, category="CORE", domain="food", verified=True, importance=0.9
    )
    assert edited == {"__typename": "MemoryPayload", "memory": {"id": memory_id}}
    memory = _memory(api, memory_id)
    assert memory["content"] == "Ann likes tea"
    assert (memory["category"], memory["domain"], memory["verified"], memory["importance"]) == (
        "CORE",
        "food",
        True,
        0.9,
    )
    # verified can be taken back; one field at a time leaves the others be.
    assert _update(api, id=memory_id, verified=False)["memory"]["id"] == memory_id
    memory = _memory(api, memory_id)
    assert (memory["category"], memory["verified"]) == ("CORE", False)
    assert [m["id"] for m in _all_of_ann(api)] == [memory_id]


def test_an_edit_that_changes_nothing_returns_the_memory_as_it_is(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    memory_id = add_memory(api, "ann", "Ann likes tea")
    before = _memory(api, memory_id)
    for fields in ({}, {"content": "Ann likes tea"}):
        assert _update(api, id=memory_id, **fields)["memory"]["id"] == memory_id
    assert _memory(api, memory_id) == before
    assert len(_all_of_ann(api)) == 1


def test_a_memory_that_is_not_current_cannot_be_edited(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    deleted = add_memory(api, "ann", "Ann lived in Porto")
    api.ok("mutation($id: ID!) { deleteMemory(input: {id: $id}) { __typename } }", {"id": deleted})
    ended = add_memory(api, "ann", "Ann worked at the bakery", extra=ENDED)
    before = {i: _memory(api, i) for i in (deleted, ended)}
    for memory_id in (deleted, ended):
        for fields in ({"importance": 0.9}, {"content": "something new"}):
            refused = _update(api, id=memory_id, **fields)
            assert refused == {
                "__typename": "InputError",
                "message": "only a current memory can be edited",
                "field": "id",
                "code": "BAD_USER_INPUT",
            }
    assert {i: _memory(api, i) for i in (deleted, ended)} == before
    assert len(_all_of_ann(api)) == 2


def test_a_memory_is_filed_under_a_session_of_its_own_user_only(api: Api) -> None:
    session, _ = seed_user(api, "ann", ["hello"])
    bobs_session, _ = seed_user(api, "bob", ["hi"])
    filed = api.ok(ADD_MEMORY, {"input": {"userId": "ann", "content": "x", "sessionId": session}})
    unfiled = add_memory(api, "ann", "y")
    in_session = "query($id: ID!) { memory(id: $id) { session { id userId } } }"
    assert api.ok(in_session, {"id": filed["addMemory"]["memory"]["id"]})["memory"] == {
        "session": {"id": session, "userId": "ann"}
    }
    assert api.ok(in_session, {"id": unfiled})["memory"] == {"session": None}

    refused = api.ok(
        ADD_MEMORY, {"input": {"userId": "ann", "content": "z", "sessionId": bobs_session}}
    )["addMemory"]
    assert refused["__typename"] == "NotFoundError", refused
    assert bobs_session in refused["message"]
    assert sorted(m["content"] for m in _all_of_ann(api)) == ["x", "y"]


def test_a_memory_can_be_derived_from_a_memunit_of_its_own_user_only(api: Api) -> None:
    session, _ = seed_user(api, "ann", ["hello"])
    seed_user(api, "bob", ["hi"])
    conversation = [
        {"speaker": "Ann", "content": "I moved to Lisbon last spring for a job at the port."},
        {"speaker": "Bob", "content": "That sounds like a big change, how is the new job?"},
        {"speaker": "Ann", "content": "I love it, and I walk along the river to work."},
    ]
    memorized = api.ok(
        MEMORIZE, {"input": {"userIds": ["ann"], "sessionId": session, "messages": conversation}}
    )["memorize"]
    assert memorized["__typename"] == "Memorized", memorized
    unit = next(
        d["id"]
        for m in _all_of_ann(api)
        for d in _memory(api, m["id"])["derivedFrom"]
        if d["__typename"] == "MemUnit"
    )
    mine = add_memory(api, "ann", "Ann settled in Lisbon", [unit])
    assert _memory(api, mine)["derivedFrom"] == [{"__typename": "MemUnit", "id": unit}]

    refused = api.ok(
        ADD_MEMORY, {"input": {"userId": "bob", "content": "x", "derivedFrom": [unit]}}
    )["addMemory"]
    assert refused["__typename"] == "NotFoundError", refused
    assert unit in refused["message"]
    bobs = api.ok('{ memories(userId: "bob") { edges { node { id } } } }')["memories"]["edges"]
    assert bobs == []
