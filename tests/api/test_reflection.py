"""Reflection: themes of facts become reflections that SUMMARIZE them, once."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncManagedTransaction

from graph.driver import fetch
from graph.user_deletion import DELETE_USER
from hippograph.runtime import Runtime
from hippograph.services.reflection import ReflectOutcome
from tests.api.conftest import ANN_FACTS_BY_THEME, Api, add_memory, seed_user
from tests.support import add_memory as add_stored_memory
from tests.support import add_user, memory

REFLECT = """
mutation($userId: ID!, $force: Boolean!) {
  reflect(userId: $userId, force: $force) {
    __typename
    ... on ReflectQueued { job { id status } }
    ... on InputError { field }
    ... on Error { message code }
  }
}"""

JOB = """query($id: ID!) { job(id: $id) { status error counts { reflections consolidated } } }"""

REFLECTIONS = """
query($userId: ID!) {
  memories(userId: $userId, first: 50, filter: {kinds: [REFLECTION]}) {
    edges { node { id content importance category
      ... on Reflection { summarizes { id content consolidated
        summarizedBy { id } } } } }
  }
}"""

FACTS = ANN_FACTS_BY_THEME


def _add_fact(api: Api, content: str, importance: float) -> str:
    result = api.ok(
        """mutation($input: AddMemoryInput!) { addMemory(input: $input) {
             ... on MemoryPayload { memory { id } } } }""",
        {"input": {"userId": "ann", "content": content, "importance": importance}},
    )["addMemory"]
    memory_id: str = result["memory"]["id"]
    return memory_id


def _run(api: Api, force: bool) -> dict[str, Any]:
    queued = api.ok(REFLECT, {"userId": "ann", "force": force})["reflect"]
    assert queued["__typename"] == "ReflectQueued", queued
    return api.finished_job(JOB, queued["job"]["id"])


def test_themes_become_reflections_over_their_facts(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    ids = {
        theme: {_add_fact(api, text, weight) for text, weight in facts}
        for theme, facts in FACTS.items()
    }
    job = _run(api, force=False)
    assert job["status"] == "SUCCEEDED", job
    assert job["counts"] == {"reflections": 2, "consolidated": 6}

    reflections = [e["node"] for e in api.ok(REFLECTIONS, {"userId": "ann"})["memories"]["edges"]]
    assert len(reflections) == 2
    covered = {frozenset(s["id"] for s in r["summarizes"]) for r in reflections}
    assert covered == {frozenset(theme) for theme in ids.values()}  # one reflection per theme
    for reflection in reflections:
        assert reflection["importance"] == 0.9
        assert reflection["category"] == "CORE"  # exempt from forgetting
        for fact in reflection["summarizes"]:
            assert fact["consolidated"] is True
            assert fact["summarizedBy"] == [{"id": reflection["id"]}]

    # Consolidated facts leave default retrieval; a filter brings them back.
    listed = api.ok('query { memories(userId: "ann", first: 50) { edges { node { kind } } } }')[
        "memories"
    ]["edges"]
    assert {e["node"]["kind"] for e in listed} == {"REFLECTION"}

    # Again, even forced: nothing new (the facts are consolidated; ids are derived).
    again = _run(api, force=True)
    assert again["counts"] == {"reflections": 0, "consolidated": 0}
    assert len(api.ok(REFLECTIONS, {"userId": "ann"})["memories"]["edges"]) == 2


def test_a_user_never_holds_two_reflections_on_one_theme(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    climbing = [text for text, _ in FACTS["climbing"]]
    for text in [*climbing, "Ann boulders at Fontainebleau", "Ann belays her sister"]:
        _add_fact(api, text, 0.9)  # 4.5 in all: over the rule's 4.0
    assert _run(api, force=True)["counts"]["reflections"] == 1
    [first] = [e["node"] for e in api.ok(REFLECTIONS, {"userId": "ann"})["memories"]["edges"]]
    # More on the same theme later: the new reflection takes the old one in,
    # by its theme, instead of standing beside it or quoting it whole.
    for text in (
        "Ann climbs at the gym on Wednesdays",
        "Ann plans a climbing trip to Arco",
        "Ann keeps a journal of her climbing routes",
        "Ann trains her finger strength for climbing",
    ):
        _add_fact(api, text, 0.9)
    assert _run(api, force=True)["status"] == "SUCCEEDED"
    current = [e["node"] for e in api.ok(REFLECTIONS, {"userId": "ann"})["memories"]["edges"]]
    assert len(current) == 1, current
    [latest] = current
    assert first["id"] in {s["id"] for s in latest["summarizes"]}
    assert latest["content"].count("has shared about") == 1, latest["content"]


def test_the_rule_and_the_cooldown(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    add_memory(api, "ann", "Ann likes tea")  # importance 0.5: far from 4.0
    assert _run(api, force=True)["counts"] == {"reflections": 0, "consolidated": 0}
    for text, weight in FACTS["coffee"]:
        _add_fact(api, text, weight)
    for text, weight in FACTS["climbing"]:
        _add_fact(api, text, weight)
    assert _run(api, force=False)["counts"]["reflections"] >= 1
    # New facts within the hour: the cooldown holds them back unless forced.
    for text in ("Ann drinks oat milk lattes", "Ann visits a new coffee roaster monthly"):
        _add_fact(api, text, 1.0)
    for text in ("Ann climbs indoors on Wednesdays", "Ann wants to climb in Yosemite"):
        _add_fact(api, text, 1.0)
    assert _run(api, force=False)["counts"]["reflections"] == 0
    assert _run(api, force=True)["counts"]["reflections"] >= 1


def test_reflect_is_scoped(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    seed_user(api, "bob", ["hi"])
    bob = api.as_key(api.create_key(["bob"]))
    result = bob.ok(REFLECT, {"userId": "ann", "force": False})["reflect"]
    assert result["__typename"] == "NotFoundError"


def test_reflect_rejects_a_bad_user_id_and_queues_nothing(api: Api) -> None:
    result = api.ok(REFLECT, {"userId": "no spaces allowed", "force": False})["reflect"]
    assert result["__typename"] == "InputError", result
    assert result["field"] == "userId"


UPDATE = """mutation($id: ID!, $content: String!) { updateMemory(input: {id: $id, content: $content})
  { __typename ... on MemoryPayload { memory { id } } ... on Error { message } } }"""
DELETE = """mutation($id: ID!, $hard: Boolean!) { deleteMemory(input: {id: $id, hard: $hard})
  { __typename ... on Error { message } } }"""
DEFAULT_LISTING = 'query { memories(userId: "ann", first: 50) { edges { node { id kind } } } }'


def test_a_reflection_corrected_keeps_its_facts_and_one_deleted_hands_them_back(
    api: Api,
) -> None:
    seed_user(api, "ann", ["hello"])
    for facts in FACTS.values():
        for text, weight in facts:
            _add_fact(api, text, weight)
    assert _run(api, force=False)["counts"] == {"reflections": 2, "consolidated": 6}
    corrected, deleted = [
        e["node"] for e in api.ok(REFLECTIONS, {"userId": "ann"})["memories"]["edges"]
    ]

    # A corrected text is a new version that summarises what the old one did.
    new = api.ok(UPDATE, {"id": corrected["id"], "content": "Ann's climbing, in short."})
    new_id = new["updateMemory"]["memory"]["id"]
    current = {
        e["node"]["id"]: e["node"]
        for e in api.ok(REFLECTIONS, {"userId": "ann"})["memories"]["edges"]
    }
    assert set(current) == {new_id, deleted["id"]}
    assert {s["id"] for s in current[new_id]["summarizes"]} == {
        s["id"] for s in corrected["summarizes"]
    }
    for fact in current[new_id]["summarizes"]:
        assert fact["consolidated"] is True
        assert new_id in {r["id"] for r in fact["summarizedBy"]}

    # A deleted reflection's facts are the user's again: listed and searchable.
    assert (
        api.ok(DELETE, {"id": deleted["id"], "hard": False})["deleteMemory"]["__typename"]
        == "MemoryDeleted"
    )
    listed = {e["node"]["id"] for e in api.ok(DEFAULT_LISTING)["memories"]["edges"]}
    assert {s["id"] for s in deleted["summarizes"]} <= listed
    assert not {s["id"] for s in corrected["summarizes"]} & listed  # still consolidated
    # The same facts make the same reflection, which the user deleted: a run
    # does not bring it back.
    assert _run(api, force=True)["counts"] == {"reflections": 0, "consolidated": 0}
    # Hard-deleting the corrected one hands its facts back too.
    assert (
        api.ok(DELETE, {"id": new_id, "hard": True})["deleteMemory"]["__typename"]
        == "MemoryDeleted"
    )
    listed = {e["node"]["id"] for e in api.ok(DEFAULT_LISTING)["memories"]["edges"]}
    assert {s["id"] for s in corrected["summarizes"]} <= listed


async def test_memories_left_without_their_user_are_not_reflected_on(runtime: Runtime) -> None:
    # Memories a deleted user left behind (a race before a memory's creation
    # needed its user): a reflect run must not ask the model to summarise
    # them for no one, and then fail to write it.
    store = runtime.connection.store
    await add_user(store, "ann")
    facts = [fact for theme in FACTS.values() for fact in theme]
    for index, (fact, importance) in enumerate(facts):
        await add_stored_memory(store, memory("ann", fact, importance=importance), seed=index)

    async def delete_the_user(tx: AsyncManagedTransaction) -> None:
        await fetch(tx, DELETE_USER, {"user_id": "ann"})

    await store.graph.write(delete_the_user)
    assert await runtime.services.reflection.reflect("ann", force=True) == ReflectOutcome(due=False)
