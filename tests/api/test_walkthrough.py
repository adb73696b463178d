"""The README's walk-through, step by step, over HTTP."""

from __future__ import annotations

from datetime import datetime

from starlette.testclient import TestClient

from hippograph.models import Message, Role
from hippograph.services.messages import MessageInput, message_id
from tests.api.conftest import ADD_MEMORY, ADD_MESSAGES, Api, add_memory, seed_user


def test_create_add_search_and_walk_provenance(api: Api) -> None:
    session, messages = seed_user(
        api,
        "alice",
        [
            "I just got back from hiking in the Alps with my sister.",
            "My favourite drink is a flat white, no sugar.",
            "Next month I start a new job as a data engineer.",
        ],
    )
    hiking = add_memory(api, "alice", "Alice went hiking in the Alps with her sister", messages[:1])
    add_memory(api, "alice", "Alice drinks flat whites without sugar", messages[1:2])
    add_memory(api, "alice", "Alice starts a data engineering job next month", messages[2:])

    found = api.ok(
        """query($q: String!) {
             search(userId: "alice", query: $q, topK: 2) {
               hits { score similarity memory { id content } }
             }
           }""",
        {"q": "mountain trip with family"},
    )["search"]["hits"]
    assert found[0]["memory"]["id"] == hiking
    assert found[0]["score"] >= found[1]["score"]

    walked = api.ok(
        """query($id: ID!) {
             provenance(id: $id, depth: 4) {
               root { id }
               nodes { __typename id ... on Message { content speaker seq } }
               edges { source type target }
             }
           }""",
        {"id": hiking},
    )["provenance"]
    assert walked["root"]["id"] == hiking
    assert {"source": hiking, "type": "DERIVED_FROM", "target": messages[0]} in walked["edges"]
    message = next(n for n in walked["nodes"] if n["__typename"] == "Message")
    assert message["content"].startswith("I just got back from hiking")

    nested = api.ok(
        """query($id: ID!) {
             memory(id: $id) {
               __typename content
               derivedFrom { __typename id ... on Message { session { id user { name } } } }
             }
             user(id: "alice") { sessions(first: 5) { edges { node { id
               messages(first: 2) { edges { node { seq } } pageInfo { hasNextPage endCursor } }
             } } } }
           }""",
        {"id": hiking},
    )
    assert nested["memory"]["__typename"] == "SemanticMemory"
    source = nested["memory"]["derivedFrom"][0]
    assert source["session"] == {"id": session, "user": {"name": "Alice"}}
    page = nested["user"]["sessions"]["edges"][0]["node"]["messages"]
    assert [e["node"]["seq"] for e in page["edges"]] == [1, 2]
    assert page["pageInfo"]["hasNextPage"]


def test_replayed_messages_create_nothing(api: Api) -> None:
    session, _ = seed_user(api, "bob", ["hello"])
    ok = {"speaker": "bob", "content": "ok", "ts": "2024-05-01T10:00:00+02:00"}
    batch = [
        {"speaker": "bob", "content": "one", "clientId": "m-1"},
        {"speaker": "bob", "content": "two", "ts": "2024-05-01T10:00:00+02:00"},
        ok,
        ok,  # the same words again at the same time: a message of its own
    ]
    first = api.ok(ADD_MESSAGES, {"sessionId": session, "messages": batch})["addMessages"]
    again = api.ok(ADD_MESSAGES, {"sessionId": session, "messages": batch})["addMessages"]
    assert (first["created"], first["existing"]) == (4, 0)
    assert [m["seq"] for m in first["messages"]] == [2, 3, 4, 5]
    assert (again["created"], again["existing"]) == (0, 4)
    assert [m["id"] for m in again["messages"]] == [m["id"] for m in first["messages"]]


def test_one_instant_written_with_two_offsets_is_one_message(api: Api) -> None:
    session, _ = seed_user(api, "bob", ["hello"])
    said = {"speaker": "bob", "content": "landed in Denver"}
    forms = ["2024-05-01T10:00:00-07:00", "2024-05-01T17:00:00+00:00", "2024-05-01T17:00:00Z"]
    added = [
        api.ok(ADD_MESSAGES, {"sessionId": session, "messages": [{**said, "ts": ts}]})[
            "addMessages"
        ]
        for ts in forms
    ]
    assert [(a["created"], a["existing"]) for a in added] == [(1, 0), (0, 1), (0, 1)]
    assert len({a["messages"][0]["id"] for a in added}) == 1


def test_a_message_stored_under_its_earlier_id_is_found_by_its_replay(
    api: Api, client: TestClient
) -> None:
    # Before times counted as UTC, a message's id hashed its time as the
    # client wrote it: a replay after the upgrade must not store it again.
    session, _ = seed_user(api, "bob", ["hello"])
    ts = datetime.fromisoformat("2024-05-01T10:00:00-07:00")
    said = MessageInput("bob", "landed in Denver", ts=ts)
    old_id = message_id(session, said, ts, as_written=True)
    assert old_id != message_id(session, said, ts)
    old = Message(old_id, session, "bob", "bob", Role.USER, said.content, ts, 0)
    store = client.app.state.runtime.connection.store.messages  # type: ignore[attr-defined]
    portal = client.portal
    assert portal is not None
    portal.call(store.append, session, [old])

    replay = [{"speaker": "bob", "content": said.content, "ts": ts.isoformat()}]
    again = api.ok(ADD_MESSAGES, {"sessionId": session, "messages": replay})["addMessages"]

    assert (again["created"], again["existing"]) == (0, 1)
    assert again["messages"][0]["id"] == old_id


def test_a_client_id_twice_in_one_call_is_refused_and_adds_nothing(api: Api) -> None:
    session, _ = seed_user(api, "bob", ["hello"])
    batch = [
        {"speaker": "bob", "content": "I live in Paris", "clientId": "m1"},
        {"speaker": "bob", "content": "My sister lives in Rome", "clientId": "m1"},
    ]

    refused = api.ok(ADD_MESSAGES, {"sessionId": session, "messages": batch})["addMessages"]

    assert refused["__typename"] == "InputError", refused
    assert refused["field"] == "messages[1].clientId"
    assert "messages[0]" in refused["message"]
    one = [{"speaker": "bob", "content": "next"}]
    after = api.ok(ADD_MESSAGES, {"sessionId": session, "messages": one})["addMessages"]
    assert [m["seq"] for m in after["messages"]] == [2]


def test_update_with_new_content_supersedes_and_keeps_the_old_version(api: Api) -> None:
    seed_user(api, "carol", ["x"])
    old = add_memory(api, "carol", "Carol lives in Paris")
    result = api.ok(
        """mutation($id: ID!) { updateMemory(input: {id: $id, content: "Carol lives in Lyon"}) {
             __typename ... on MemoryPayload { memory { id content } } } }""",
        {"id": old},
    )["updateMemory"]
    new = result["memory"]["id"]
    assert new != old
    walked = api.ok(
        "query($id: ID!) { provenance(id: $id) { edges { source type target } } }", {"id": new}
    )["provenance"]
    assert walked["edges"] == [{"source": new, "type": "SUPERSEDES", "target": old}]
    listed = api.ok('{ memories(userId: "carol") { edges { node { content } } } }')["memories"]
    assert [e["node"]["content"] for e in listed["edges"]] == ["Carol lives in Lyon"]
    kept = api.ok("query($id: ID!) { memory(id: $id) { content validTo } }", {"id": old})
    assert kept["memory"]["content"] == "Carol lives in Paris"
    assert kept["memory"]["validTo"] is not None


def test_delete_soft_then_hard(api: Api) -> None:
    seed_user(api, "dan", ["x"])
    memory_id = add_memory(api, "dan", "temporary")
    delete = """mutation($id: ID!, $hard: Boolean!) { deleteMemory(input: {id: $id, hard: $hard}) {
                  __typename ... on MemoryDeleted { id hard } ... on Error { code } } }"""
    assert api.ok(delete, {"id": memory_id, "hard": False})["deleteMemory"]["hard"] is False
    soft = api.ok("query($id: ID!) { memory(id: $id) { deletedAt } }", {"id": memory_id})
    assert soft["memory"]["deletedAt"] is not None
    assert api.ok(delete, {"id": memory_id, "hard": True})["deleteMemory"]["hard"] is True
    assert api.ok("query($id: ID!) { memory(id: $id) { id } }", {"id": memory_id})["memory"] is None
    again = api.ok(delete, {"id": memory_id, "hard": True})["deleteMemory"]
    assert again == {"__typename": "NotFoundError", "code": "NOT_FOUND"}


def test_add_memory_kinds_map_to_their_types(api: Api) -> None:
    seed_user(api, "eve", ["x"])
    result = api.ok(
        ADD_MEMORY,
        {"input": {"userId": "eve", "content": "Eve's birthday is 3 May", "kind": "PROFILE"}},
    )["addMemory"]
    assert result["memory"]["kind"] == "PROFILE"
    typed = api.ok(
        "query($id: ID!) { memory(id: $id) { __typename } }", {"id": result["memory"]["id"]}
    )
    assert typed["memory"]["__typename"] == "ProfileMemory"
