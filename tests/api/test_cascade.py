"""deleteWithProvenance: a report of what derives only from a node, and its removal on request."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import (
    ADD_MESSAGES,
    GROUP_MEMORIZE,
    Api,
    add_memory,
    group_memorize,
    seed_user,
)

DELETE = """
mutation($id: ID!, $dryRun: Boolean! = true, $expected: [ID!]) {
  deleteWithProvenance(input: {id: $id, dryRun: $dryRun, expectedDeleted: $expected}) {
    __typename
    ... on DeletionReport {
      root applied
      deleted { __typename id }
      kept { __typename id }
      counts { sessions messages memUnits memories }
    }
    ... on NotFoundError { id }
    ... on InputError { field }
    ... on Error { message code }
  }
}"""


def _delete(api: Api, node_id: str, **variables: Any) -> dict[str, Any]:
    result: dict[str, Any] = api.ok(DELETE, {"id": node_id, **variables})["deleteWithProvenance"]
    return result


def _exists(api: Api, node_id: str) -> bool:
    field = {"mem": "memory", "msg": "message", "ses": "session"}[node_id.split("_")[0]]
    data = api.ok(f"query($id: ID!) {{ node: {field}(id: $id) {{ id }} }}", {"id": node_id})
    return data["node"] is not None


def _existing(api: Api, *node_ids: str) -> set[str]:
    """Those of ``node_ids`` the API still finds, each asked for on its own."""
    return {node_id for node_id in node_ids if _exists(api, node_id)}


def _ids(nodes: list[dict[str, str]]) -> set[str]:
    return {n["id"] for n in nodes}


def test_a_memory_also_derived_from_another_message_is_kept(api: Api) -> None:
    _, (first, second) = seed_user(api, "ann", ["I moved to Oslo", "Oslo is cold"])
    both = add_memory(api, "ann", "Ann lives in cold Oslo", [first, second])
    report = _delete(api, first, dryRun=False)
    assert report["__typename"] == "DeletionReport", report
    assert report["applied"] is True
    assert _ids(report["deleted"]) == {first}
    assert report["kept"] == [{"__typename": "SemanticMemory", "id": both}]
    assert _existing(api, first, both, second) == {both, second}


def test_what_derives_only_from_the_message_goes_two_levels_up(api: Api) -> None:
    session, (said, other) = seed_user(api, "ann", ["I adopted a cat", "hello"])
    fact = add_memory(api, "ann", "Ann has a cat", [said])
    inference = add_memory(api, "ann", "Ann likes animals", [fact])
    unrelated = add_memory(api, "ann", "Ann says hello", [other])
    report = _delete(api, said, dryRun=False)
    assert report["root"] == said
    assert _ids(report["deleted"]) == {said, fact, inference}
    assert report["kept"] == []
    assert report["counts"] == {"sessions": 0, "messages": 1, "memUnits": 0, "memories": 2}
    kept = {unrelated, session, other}
    assert _existing(api, said, fact, inference, *kept) == kept


def test_a_dry_run_reports_and_changes_nothing(api: Api) -> None:
    _, (said,) = seed_user(api, "ann", ["I adopted a cat"])
    fact = add_memory(api, "ann", "Ann has a cat", [said])
    report = _delete(api, said)  # dryRun defaults to true
    assert report["applied"] is False
    assert _ids(report["deleted"]) == {said, fact}
    assert _existing(api, said, fact) == {said, fact}


def test_a_reflection_over_two_memories_survives_losing_one(api: Api) -> None:
    _, (one, two) = seed_user(api, "ann", ["I run", "I swim"])
    a = add_memory(api, "ann", "Ann runs", [one])
    b = add_memory(api, "ann", "Ann swims", [two])
    summary = add_memory(api, "ann", "Ann is sporty", [a, b])
    report = _delete(api, one, dryRun=False)
    assert _ids(report["deleted"]) == {one, a}
    assert _ids(report["kept"]) == {summary}
    assert _existing(api, a, summary, b) == {summary, b}


def test_deleting_a_session_removes_its_messages_and_what_derives_only_from_them(
    api: Api,
) -> None:
    session, (one, two) = seed_user(api, "ann", ["I run", "I swim"])
    other_session = api.ok(
        'mutation { createSession(input: {userId: "ann"}) { ... on SessionCreated '
        "{ session { id } } } }"
    )["createSession"]["session"]["id"]
    (elsewhere,) = [
        m["id"]
        for m in api.ok(
            ADD_MESSAGES,
            {"sessionId": other_session, "messages": [{"speaker": "ann", "content": "I cycle"}]},
        )["addMessages"]["messages"]
    ]
    runs = add_memory(api, "ann", "Ann runs", [one])
    sporty = add_memory(api, "ann", "Ann is sporty", [runs, two])
    mixed = add_memory(api, "ann", "Ann does sports", [two, elsewhere])
    loose = add_memory(api, "ann", "Ann exists")

    report = _delete(api, session, dryRun=False)
    assert report["deleted"][0] == {"__typename": "Session", "id": session}
    assert _ids(report["deleted"]) == {session, one, two, runs, sporty}
    assert _ids(report["kept"]) == {mixed}
    assert report["counts"] == {"sessions": 1, "messages": 2, "memUnits": 0, "memories": 2}
    kept = {other_session, elsewhere, mixed, loose}
    assert _existing(api, session, one, two, runs, sporty, *kept) == kept


def test_a_limited_key_cannot_delete_another_users_message(api: Api) -> None:
    session, (theirs,) = seed_user(api, "bob", ["secret"])
    seed_user(api, "ann", ["hello"])
    ann = api.as_key(api.create_key(["ann"]))
    for node_id in (theirs, session):
        report = _delete(ann, node_id, dryRun=False)
        assert report["__typename"] == "NotFoundError", report
        assert report["id"] == node_id
    assert _existing(api, theirs, session) == {theirs, session}


def test_a_confirmed_report_that_went_stale_deletes_nothing(api: Api) -> None:
    _, (said,) = seed_user(api, "ann", ["I adopted a cat"])
    fact = add_memory(api, "ann", "Ann has a cat", [said])
    shown = [n["id"] for n in _delete(api, said)["deleted"]]
    late = add_memory(api, "ann", "Ann has a pet", [fact])
    stale = _delete(api, said, dryRun=False, expected=shown)
    assert stale["__typename"] == "ConflictError", stale
    assert _existing(api, said, fact, late) == {said, fact, late}

    fresh = [n["id"] for n in _delete(api, said)["deleted"]]
    done = _delete(api, said, dryRun=False, expected=fresh)
    assert done["applied"] is True
    assert _existing(api, said, fact, late) == set()


def test_only_messages_memunits_and_sessions_can_be_roots(api: Api) -> None:
    _, (said,) = seed_user(api, "ann", ["hello"])
    fact = add_memory(api, "ann", "Ann says hello", [said])
    for bad in (fact, "ann", "msg_nope"):
        report = _delete(api, bad)
        assert report["__typename"] == "InputError", report
        assert report["field"] == "id"
    missing = "msg_01HZZZZZZZZZZZZZZZZZZZZZZZ"
    assert _delete(api, missing)["__typename"] == "NotFoundError"


PROVENANCE_OF = """
query($u: ID!) { memories(userId: $u, first: 100) { edges { node { id
  derivedFrom { __typename id } } } } }"""


def _group_world(api: Api) -> tuple[str, dict[str, list[dict[str, Any]]]]:
    """A group MemUnit in Bob's session, made only of that session's messages."""
    group_memorize(
        api,
        [
            {"speaker": "Bob", "content": "I adopted a greyhound called Pixel last weekend."},
            {"speaker": "Ann", "content": "I love that! I am allergic to cats, so dogs suit me."},
            {"speaker": "Bob", "content": "I work as a carpenter in Leeds and build tables."},
        ],
    )
    memories = {u: api.ok(PROVENANCE_OF, {"u": u})["memories"]["edges"] for u in ("ann", "bob")}
    units = {
        d["id"]
        for edges in memories.values()
        for e in edges
        for d in e["node"]["derivedFrom"]
        if d["__typename"] == "MemUnit"
    }
    shared = [
        unit
        for unit in units
        if all(
            any(d["id"] == unit for e in memories[u] for d in e["node"]["derivedFrom"])
            for u in ("ann", "bob")
        )
    ]
    assert shared, memories
    return shared[0], memories


def test_a_participant_cannot_destroy_a_group_memunit_and_the_dry_run_says_so(api: Api) -> None:
    unit, before = _group_world(api)
    ann = api.as_key(api.create_key(["ann"]))
    # Dry run and real run answer the same: refused, naming what is shared.
    for dry_run in (True, False):
        report = _delete(ann, unit, dryRun=dry_run)
        assert report["__typename"] == "ConflictError", report
        assert unit in report["message"]
        assert "bob" not in report["message"]  # says Bob's nodes are there, never names them
        assert "other users' data derives from it" in report["message"]  # nor counts them
        assert "node(s)" not in report["message"]
    # Nothing changed: Bob's memories keep their provenance.
    assert {u: api.ok(PROVENANCE_OF, {"u": u})["memories"]["edges"] for u in before} == before
    # The other participant's key is refused alike; an admin key sees everything
    # that derives from it, for both users, and deletes exactly that.
    bob = api.as_key(api.create_key(["bob"]))
    assert _delete(bob, unit)["__typename"] == "ConflictError"
    report = _delete(api, unit)
    owners = {m["id"] for m in report["deleted"] if m["__typename"].endswith("Memory")}
    assert owners & {e["node"]["id"] for e in before["bob"]}
    assert owners & {e["node"]["id"] for e in before["ann"]}
    done = _delete(api, unit, dryRun=False, expected=sorted(_ids(report["deleted"])))
    assert done["applied"] is True
    assert _ids(done["deleted"]) == _ids(report["deleted"])


def test_a_key_of_both_participants_may_delete_the_group_memunit(api: Api) -> None:
    unit, _ = _group_world(api)
    both = api.as_key(api.create_key(["ann", "bob"]))
    report = _delete(both, unit, dryRun=False)
    assert report["__typename"] == "DeletionReport", report
    assert report["applied"] is True


def test_a_deleted_memunit_is_not_made_again_by_the_next_memorize(api: Api) -> None:
    unit, before = _group_world(api)
    gone = _delete(api, unit, dryRun=False)
    assert gone["applied"] is True, gone
    session = api.ok('{ user(id: "bob") { sessions(first: 1) { edges { node { id } } } } }')
    session_id = session["user"]["sessions"]["edges"][0]["node"]["id"]

    more = [{"speaker": "Bob", "content": "We are driving to the coast on Saturday."}]
    made = api.ok(GROUP_MEMORIZE, {"session": session_id, "messages": more})["memorize"]

    # Only the new message made a unit: the deleted one's messages stay, set aside.
    assert made["counts"]["memunits"] == 1, made
    units = {
        d["id"]
        for u in before
        for e in api.ok(PROVENANCE_OF, {"u": u})["memories"]["edges"]
        for d in e["node"]["derivedFrom"]
        if d["__typename"] == "MemUnit"
    }
    said = "query($id: ID!) { memUnit(id: $id) { messages { content } } }"
    texts = [m["content"] for u in units for m in api.ok(said, {"id": u})["memUnit"]["messages"]]
    assert texts == [more[0]["content"]]
    kept = "query($id: ID!) { session(id: $id) { messages(first: 50) { edges { node { id } } } } }"
    assert len(api.ok(kept, {"id": session_id})["session"]["messages"]["edges"]) == 5
