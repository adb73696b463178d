"""applyMemoryOps: an agent's batch applied whole, or not at all."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.api.conftest import ENDED, Api, add_memory, seed_user

APPLY = """
mutation($userId: ID!, $ops: [MemoryOpInput!]!) {
  applyMemoryOps(input: {userId: $userId, ops: $ops}) {
    __typename
    ... on MemoryOpsApplied { results { index op memoryId supersededId } }
    ... on InputError { message field }
    ... on NotFoundError { message id }
    ... on ConflictError { message }
  }
}"""

STATE = """
query($userId: ID!) {
  memories(userId: $userId, first: 50,
           filter: {includeSuperseded: true, includeDeleted: true}) {
    edges { node { id content importance validTo deletedAt source
      ... on SemanticMemory { id } } }
  }
}"""


def _state(api: Api) -> dict[str, dict[str, Any]]:
    edges = api.ok(STATE, {"userId": "ann"})["memories"]["edges"]
    return {e["node"]["id"]: e["node"] for e in edges}


def _supersedes(api: Api, memory_id: str) -> list[dict[str, str]]:
    walked = api.ok(
        "query($id: ID!) { provenance(id: $id, depth: 1, direction: DOWN) "
        "{ edges { source type target } } }",
        {"id": memory_id},
    )["provenance"]
    return [e for e in walked["edges"] if e["type"] == "SUPERSEDES"]


def test_every_kind_of_operation_in_one_call(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    tea = add_memory(api, "ann", "Ann drinks green tea")
    job = add_memory(api, "ann", "Ann works at a bakery")
    hobby = add_memory(api, "ann", "Ann plays chess")
    old = add_memory(api, "ann", "Ann has a cat")
    kept = add_memory(api, "ann", "Ann likes rain")
    ops = [
        {"op": "ADD", "content": "Ann is allergic to peanuts", "importance": 0.9},
        {"op": "UPDATE", "id": job, "content": "Ann works at a bookshop"},
        {"op": "BOOST", "id": tea},
        {"op": "DELETE", "id": hobby},
        {"op": "DELETE", "id": old, "hard": True},
        {"op": "SKIP"},
        {"op": "SKIP", "id": kept},  # what the agent left alone, for its log
    ]
    result = api.ok(APPLY, {"userId": "ann", "ops": ops})["applyMemoryOps"]
    assert result["__typename"] == "MemoryOpsApplied", result
    results = result["results"]
    assert [r["op"] for r in results] == [
        *("ADD", "UPDATE", "BOOST", "DELETE", "DELETE", "SKIP", "SKIP")
    ]
    assert [r["memoryId"] for r in results[5:]] == [None, kept]
    state = _state(api)
    added = state[results[0]["memoryId"]]
    assert (added["content"], added["importance"], added["source"]) == (
        "Ann is allergic to peanuts",
        0.9,
        "AGENT",
    )
    successor = results[1]["memoryId"]
    assert results[1]["supersededId"] == job
    assert state[successor]["content"] == "Ann works at a bookshop"
    assert state[job]["validTo"] is not None  # kept, with its text, but no longer current
    assert state[job]["content"] == "Ann works at a bakery"
    assert _supersedes(api, successor) == [
        {"source": successor, "type": "SUPERSEDES", "target": job}
    ]
    assert state[tea]["importance"] == 0.8  # 0.5 + 0.3
    assert state[hobby]["deletedAt"] is not None
    assert old not in state

    # BOOST is capped at 1.
    api.ok(APPLY, {"userId": "ann", "ops": [{"op": "BOOST", "id": tea}]})
    api.ok(APPLY, {"userId": "ann", "ops": [{"op": "BOOST", "id": tea}]})
    assert _state(api)[tea]["importance"] == 1.0


def test_a_bad_operation_applies_nothing(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    seed_user(api, "bob", ["hi"])
    tea = add_memory(api, "ann", "Ann drinks green tea")
    bobs = add_memory(api, "bob", "Bob runs marathons")
    ended = add_memory(api, "ann", "Ann worked at the bakery", extra=ENDED)
    before = _state(api)
    unknown = "mem_01JAAAAAAAAAAAAAAAAAAAAAAA"
    add = {"op": "ADD", "content": "Ann likes jazz"}
    cases: list[tuple[list[dict[str, Any]], str, str | None]] = [
        ([add, {"op": "BOOST", "id": unknown}], "NotFoundError", None),
        ([add, {"op": "DELETE", "id": bobs}], "NotFoundError", None),
        ([add, {"op": "UPDATE", "id": tea}], "InputError", "ops[1].content"),
        ([add, {"op": "UPDATE", "id": ended, "content": "x"}], "InputError", "ops[1].id"),
        ([add, {"op": "BOOST", "id": ended}], "InputError", "ops[1].id"),
        ([add, {"op": "BOOST", "id": tea, "importance": 0.9}], "InputError", "ops[1].importance"),
        ([add, {"op": "DELETE", "id": tea, "content": "x"}], "InputError", "ops[1].content"),
        (
            [add, {"op": "UPDATE", "id": tea, "content": "x", "kind": "EVENT"}],
            "InputError",
            "ops[1].kind",
        ),
        ([{"op": "ADD", "content": "x", "hard": True}], "InputError", "ops[0].hard"),
        ([add, {"op": "BOOST"}], "InputError", "ops[1].id"),
        ([add, {"op": "BOOST", "id": "not-an-id"}], "InputError", "ops[1].id"),
        ([add, {"op": "BOOST", "id": tea}, {"op": "DELETE", "id": tea}], "InputError", "ops[2].id"),
        ([{"op": "ADD", "content": "x", "importance": 1.5}], "InputError", "ops[0].importance"),
        ([{"op": "ADD", "content": "x", "id": tea}], "InputError", "ops[0].id"),
        ([{"op": "ADD", "content": "x", "kind": "REFLECTION"}], "InputError", "ops[0].kind"),
        # A SKIP's id (the memory it left alone) is checked as any id is.
        ([add, {"op": "SKIP", "id": "not an id at all"}], "InputError", "ops[1].id"),
        ([add, {"op": "SKIP", "id": bobs}], "NotFoundError", None),
        ([add, {"op": "SKIP", "id": unknown}], "NotFoundError", None),
        ([], "InputError", "ops"),
    ]
    for ops, typename, field in cases:
        result = api.ok(APPLY, {"userId": "ann", "ops": ops})["applyMemoryOps"]
        assert result["__typename"] == typename, (ops, result)
        if field is not None:
            assert result["field"] == field, (ops, result)
    assert _state(api) == before


def test_a_soft_deleted_memory_can_be_purged_by_an_op_and_nothing_else(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    pin = add_memory(api, "ann", "Ann's bank PIN is 1234")
    deleted = api.ok(APPLY, {"userId": "ann", "ops": [{"op": "DELETE", "id": pin}]})
    assert deleted["applyMemoryOps"]["__typename"] == "MemoryOpsApplied"
    for op in ({"op": "BOOST", "id": pin}, {"op": "DELETE", "id": pin}):
        refused = api.ok(APPLY, {"userId": "ann", "ops": [op]})["applyMemoryOps"]
        assert refused["__typename"] == "NotFoundError", (op, refused)
    purged = api.ok(APPLY, {"userId": "ann", "ops": [{"op": "DELETE", "id": pin, "hard": True}]})
    assert purged["applyMemoryOps"]["__typename"] == "MemoryOpsApplied", purged
    assert pin not in _state(api)


def test_a_limited_key_cannot_touch_another_users_memories(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    seed_user(api, "bob", ["hi"])
    bobs = add_memory(api, "bob", "Bob runs marathons")
    ann = api.as_key(api.create_key(["ann"]))
    for user_id, ops in (
        ("ann", [{"op": "DELETE", "id": bobs}]),
        ("bob", [{"op": "ADD", "content": "Bob hates running"}]),
    ):
        result = ann.ok(APPLY, {"userId": user_id, "ops": ops})["applyMemoryOps"]
        assert result["__typename"] == "NotFoundError"


ADD = """
mutation($input: AddMemoryInput!) {
  addMemory(input: $input) {
    __typename
    ... on MemoryPayload { memory { id content } }
    ... on InputError { field }
    ... on Error { message code }
  }
}"""


def test_a_retried_add_with_a_client_id_creates_nothing(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    sent = {"userId": "ann", "content": "Ann is learning Welsh", "clientId": "agent-7:42"}
    first = api.ok(ADD, {"input": sent})["addMemory"]
    again = api.ok(ADD, {"input": sent})["addMemory"]
    assert first["__typename"] == again["__typename"] == "MemoryPayload"
    assert again["memory"]["id"] == first["memory"]["id"]
    assert len(_state(api)) == 1
    # The same client id for other content is a client bug, said so.
    other = api.ok(ADD, {"input": {**sent, "content": "Ann is learning Irish"}})["addMemory"]
    assert other["code"] == "CONFLICT", other
    # Another user may use the same client id: ids are per user.
    seed_user(api, "bob", ["hi"])
    bob = api.ok(ADD, {"input": {**sent, "userId": "bob"}})["addMemory"]
    assert bob["memory"]["id"] != first["memory"]["id"]
    bad = api.ok(ADD, {"input": {**sent, "clientId": "has space"}})["addMemory"]
    assert (bad["__typename"], bad["field"]) == ("InputError", "clientId")


def test_a_retried_batch_of_ops_adds_nothing_twice(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    ops = [
        {"op": "ADD", "content": "Ann is allergic to peanuts", "clientId": "a1"},
        {"op": "ADD", "content": "Ann runs marathons", "clientId": "a2"},
        {"op": "ADD", "content": "Ann likes jazz"},  # no client id: added each time
    ]
    first = api.ok(APPLY, {"userId": "ann", "ops": ops})["applyMemoryOps"]["results"]
    again = api.ok(APPLY, {"userId": "ann", "ops": ops})["applyMemoryOps"]["results"]
    assert [r["memoryId"] for r in again[:2]] == [r["memoryId"] for r in first[:2]]
    contents = sorted(m["content"] for m in _state(api).values())
    assert contents == [
        "Ann is allergic to peanuts",
        "Ann likes jazz",
        "Ann likes jazz",
        "Ann runs marathons",
    ]
    for bad_ops, field in [
        ([{"op": "ADD", "content": "x", "clientId": "d"}] * 2, "ops[1].clientId"),
        ([{"op": "SKIP", "clientId": "s"}], "ops[0].clientId"),
        ([{"op": "ADD", "content": "x", "clientId": "bad id"}], "ops[0].clientId"),
    ]:
        result = api.ok(APPLY, {"userId": "ann", "ops": bad_ops})["applyMemoryOps"]
        assert (result["__typename"], result["field"]) == ("InputError", field)
    assert len(_state(api)) == 4


def test_an_update_to_the_same_text_makes_no_new_version(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    tea = add_memory(api, "ann", "Ann drinks green tea")
    before = _state(api)
    same = [{"op": "UPDATE", "id": tea, "content": "Ann drinks green tea"}]
    result = api.ok(APPLY, {"userId": "ann", "ops": same})["applyMemoryOps"]
    assert result["results"] == [
        {"index": 0, "op": "UPDATE", "memoryId": tea, "supersededId": None}
    ], result
    assert _state(api) == before


UPDATE = """
mutation($input: UpdateMemoryInput!) {
  updateMemory(input: $input) { __typename ... on MemoryPayload { memory { id } } }
}"""


def test_an_update_to_the_same_text_with_a_new_importance_sets_it_in_place(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    tea = add_memory(api, "ann", "Ann drinks tea")
    ops = [{"op": "UPDATE", "id": tea, "content": "Ann drinks tea", "importance": 0.9}]
    result = api.ok(APPLY, {"userId": "ann", "ops": ops})["applyMemoryOps"]
    assert result["results"] == [
        {"index": 0, "op": "UPDATE", "memoryId": tea, "supersededId": None}
    ], result
    [only] = _state(api).values()  # no second version of the same text
    assert (only["id"], only["importance"], only["validTo"]) == (tea, 0.9, None)
    # updateMemory does the same with the same edit: the two paths agree.
    coffee = add_memory(api, "ann", "Ann drinks coffee")
    edit = {"id": coffee, "content": "Ann drinks coffee", "importance": 0.9}
    updated = api.ok(UPDATE, {"input": edit})["updateMemory"]
    assert updated["memory"]["id"] == coffee
    assert _state(api)[coffee]["importance"] == 0.9
    assert len(_state(api)) == 2


def test_a_batch_sent_several_times_at_once_adds_its_memory_once(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    ops = [{"op": "ADD", "content": "Ann runs", "clientId": "k2"}]

    def send(content: str) -> dict[str, Any]:
        sent = [op | {"content": content} for op in ops]
        answer: dict[str, Any] = api.ok(APPLY, {"userId": "ann", "ops": sent})["applyMemoryOps"]
        return answer

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(send, ["Ann runs"] * 6))
    assert [a["__typename"] for a in answers] == ["MemoryOpsApplied"] * 6, answers
    ids = {a["results"][0]["memoryId"] for a in answers}
    assert len(ids) == 1
    assert list(_state(api)) == list(ids)

    # The same client id sent at once for two contents: the one written wins,
    # the other is told its clientId names other content.
    ops = [{"op": "ADD", "content": "", "clientId": "k3"}]
    with ThreadPoolExecutor(6) as pool:
        contents = ["Ann swims", "Ann sails"] * 3
        answers = list(pool.map(send, contents))
    [kept] = [m["content"] for m in _state(api).values() if m["id"] not in ids]
    for content, answer in zip(contents, answers, strict=True):
        if content == kept:
            assert answer["__typename"] == "MemoryOpsApplied", answer
        else:
            assert answer["__typename"] == "ConflictError", answer
            assert "other content" in answer["message"]
