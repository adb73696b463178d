"""entities(userId), Entity.mentionedIn and the entity signal over HTTP; bad input is refused."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import CREATE_USER, Api, add_memory
from tests.api.test_memorize import MEMORIZE, _messages, _user_with_session
from tests.api.test_memory_ops import APPLY

CONVERSATION = [
    ("Caroline", "I joined the Hiking Club in Boston last week.", "2023-05-08T13:56:00+00:00"),
    ("Melanie", "Nice! Did Jon go with you to the Hiking Club?", "2023-05-08T13:57:00+00:00"),
    ("Caroline", "No, Jon was painting a sunrise that day.", "2023-05-08T13:58:00+00:00"),
    ("Melanie", "I bought a new kayak for the lake.", "2023-05-08T13:59:00+00:00"),
]

ENTITIES = """
query($userId: ID!, $first: Int!, $after: String) {
  entities(userId: $userId, first: $first, after: $after) {
    edges { cursor node { id name norm kind mentionCount
      mentionedIn(first: 50) { edges { node { id content } } pageInfo { hasNextPage } } } }
    pageInfo { hasNextPage endCursor }
  }
}"""

ENTITY = "query($id: ID!) { entity(id: $id) { id name kind } }"

SEARCH = """
query($userId: ID!, $q: String!, $w: Float) {
  search(userId: $userId, query: $q, topK: 5, touch: false, scoring: {entityWeight: $w}) {
    hits { memory { id content } breakdown { entity fused relevance context timeMatch } }
  }
}"""


def _memorize(api: Api) -> None:
    session = _user_with_session(api)
    payload = {"userIds": ["caro"], "sessionId": session, "messages": _messages(CONVERSATION)}
    result = api.ok(MEMORIZE, {"input": payload})["memorize"]
    assert result["__typename"] == "Memorized", result


def _all(api: Api, first: int) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    after: str | None = None
    while True:
        page = api.ok(ENTITIES, {"userId": "caro", "first": first, "after": after})["entities"]
        seen += [e["node"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return seen
        after = page["pageInfo"]["endCursor"]


def test_memorize_makes_entities_listed_page_by_page_with_their_memories(api: Api) -> None:
    _memorize(api)
    everything = _all(api, 50)
    assert _all(api, 3) == everything  # pages join up, in id order
    assert [e["id"] for e in everything] == sorted(e["id"] for e in everything)
    by_norm = {e["norm"]: e for e in everything}
    assert by_norm["caroline"]["kind"] == "PERSON"
    assert by_norm["hiking club"]["kind"] == "ORGANIZATION"
    assert by_norm["boston"]["kind"] == "PLACE"
    club = by_norm["hiking club"]
    # two messages and at least the memories made from them
    assert club["mentionCount"] >= 2
    contents = [e["node"]["content"] for e in club["mentionedIn"]["edges"]]
    assert contents
    assert all("Hiking Club" in c for c in contents)
    found = api.ok(ENTITY, {"id": club["id"]})["entity"]
    assert found == {"id": club["id"], "name": "Hiking Club", "kind": "ORGANIZATION"}


def test_another_tenant_sees_no_entities(api: Api) -> None:
    _memorize(api)
    club = next(e for e in _all(api, 50) if e["norm"] == "hiking club")
    api.ok(CREATE_USER, {"id": "other", "name": "Other"})
    other = api.as_key(api.create_key(["other"]))
    assert other.error_codes(ENTITIES, {"userId": "caro", "first": 5}) == ["NOT_FOUND"]
    assert other.ok(ENTITY, {"id": club["id"]})["entity"] is None


def test_bad_entity_requests_are_clear_errors(api: Api) -> None:
    _memorize(api)
    for variables, field in (
        ({"userId": "caro", "first": 0}, "first"),
        ({"userId": "caro", "first": 100000}, "first"),
        ({"userId": "caro", "first": 5, "after": "garbage"}, "after"),
        ({"userId": "bad id!", "first": 5}, "userId"),
    ):
        [error] = api.post(ENTITIES, variables)["errors"]
        assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": field}, variables
    assert api.error_codes(ENTITIES, {"userId": "nobody", "first": 5}) == ["NOT_FOUND"]
    [error] = api.post(ENTITY, {"id": "mem_01J00000000000000000000000"})["errors"]
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": "id"}


def test_search_explains_the_entity_signal_and_weight_zero_turns_it_off(api: Api) -> None:
    _memorize(api)
    query = "Who went to the Hiking Club?"
    on = api.ok(SEARCH, {"userId": "caro", "q": query, "w": 0.2})["search"]["hits"]
    assert on
    top = on[0]
    assert top["breakdown"]["entity"] > 0
    assert "Hiking Club" in top["memory"]["content"]
    off = api.ok(SEARCH, {"userId": "caro", "q": query, "w": 0.0})["search"]["hits"]
    assert all(h["breakdown"]["entity"] == 0 for h in off)
    # no weight given: the server's default, which is off unless configured
    default = api.ok(SEARCH, {"userId": "caro", "q": query, "w": None})["search"]["hits"]
    assert [h["breakdown"] for h in default] == [h["breakdown"] for h in off]
    [error] = api.post(SEARCH, {"userId": "caro", "q": query, "w": 1.5})["errors"]
    assert error["extensions"]["field"] == "scoring.entityWeight"


PROVENANCE = """
query($id: ID!) {
  provenance(id: $id, depth: 2, direction: DOWN) {
    nodes { id }
    mentions { entities { id norm kind } edges { source type target } }
  }
}"""

CLUB_MEMORIES = """
query($id: ID!) { entity(id: $id) { mentionedIn(first: 5) { edges { node { id } } } } }
"""


def test_provenance_carries_the_entities_its_nodes_mention(api: Api) -> None:
    _memorize(api)
    club = next(e for e in _all(api, 50) if e["norm"] == "hiking club")
    edges = api.ok(CLUB_MEMORIES, {"id": club["id"]})["entity"]["mentionedIn"]["edges"]
    memory_id = edges[0]["node"]["id"]
    walk = api.ok(PROVENANCE, {"id": memory_id})["provenance"]
    nodes = {n["id"] for n in walk["nodes"]}
    mentions = walk["mentions"]
    assert club["id"] in {e["id"] for e in mentions["entities"]}
    assert {"source": memory_id, "type": "MENTIONS", "target": club["id"]} in mentions["edges"]
    # every edge starts at a node of the walk and ends at a listed entity
    listed = {e["id"] for e in mentions["entities"]}
    assert all(e["source"] in nodes and e["target"] in listed for e in mentions["edges"])
    # the walk's messages mention it too
    assert any(
        e["target"] == club["id"] and e["source"].startswith("msg_") for e in mentions["edges"]
    )


UPDATE = """
mutation($id: ID!, $content: String!) {
  updateMemory(input: {id: $id, content: $content}) { __typename ... on MemoryPayload { memory { id } } }
}"""


def _mentioned_in(api: Api) -> dict[str, set[str]]:
    """Each entity's norm and the contents of what mentions it."""
    return {
        e["norm"]: {m["node"]["content"] for m in e["mentionedIn"]["edges"]} for e in _all(api, 50)
    }


def test_memories_written_directly_mention_their_entities_too(api: Api) -> None:
    # addMemory, updateMemory's new version and applyMemoryOps' ADD and UPDATE:
    # no one said them, yet they name people and places like memorize's do.
    api.ok(CREATE_USER, {"id": "caro", "name": "Caroline"})
    added = add_memory(api, "caro", "Caroline moved to Boston with Jon")
    updated = api.ok(UPDATE, {"id": added, "content": "Caroline moved to Denver with Jon"})
    assert updated["updateMemory"]["__typename"] == "MemoryPayload", updated
    ops = [
        {"op": "ADD", "content": "Caroline visited Lisbon in May 2023"},
        {
            "op": "UPDATE",
            "id": updated["updateMemory"]["memory"]["id"],
            "content": "Caroline moved to Denver with Jon and Maya",
        },
    ]
    applied = api.ok(APPLY, {"userId": "caro", "ops": ops})["applyMemoryOps"]
    assert applied["__typename"] == "MemoryOpsApplied", applied
    mentions = _mentioned_in(api)
    assert mentions["boston"] == {"Caroline moved to Boston with Jon"}
    assert mentions["lisbon"] == {"Caroline visited Lisbon in May 2023"}
    assert mentions["maya"] == {"Caroline moved to Denver with Jon and Maya"}
    assert mentions["jon"] == {
        "Caroline moved to Boston with Jon",
        "Caroline moved to Denver with Jon",
        "Caroline moved to Denver with Jon and Maya",
    }
    kinds = {e["norm"]: e["kind"] for e in _all(api, 50)}
    assert kinds["caroline"] == "PERSON"  # the user's name is a known person


def test_a_deleted_memory_is_not_among_what_mentions_an_entity(api: Api) -> None:
    api.ok(CREATE_USER, {"id": "caro", "name": "Caroline"})
    moved = add_memory(api, "caro", "Caroline moved to Lisbon with Jon")
    add_memory(api, "caro", "Caroline loves the trams of Lisbon")
    deleted = api.ok(
        "mutation($id: ID!) { deleteMemory(input: {id: $id}) { __typename } }", {"id": moved}
    )
    assert deleted["deleteMemory"]["__typename"] == "MemoryDeleted", deleted

    mentions = _mentioned_in(api)

    assert mentions["lisbon"] == {"Caroline loves the trams of Lisbon"}
