"""deleteUser: a user who asks to be forgotten goes with everything derived only from them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from neo4j import AsyncManagedTransaction
from starlette.testclient import TestClient

from graph.driver import fetch
from graph.user_deletion import DELETE_USER as DELETE_USER_NODE
from hippograph.auth import Principal
from hippograph.errors import NotFound
from hippograph.runtime import Runtime
from hippograph.services import Services
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memories import NewMemory
from tests.api.conftest import CREATE_SESSION, CREATE_USER, Api, add_memory
from tests.api.test_memorize import MEMORIZE
from tests.support import add_memory as add_stored_memory
from tests.support import add_session, add_user, memory

DELETE_USER = """
mutation($id: ID!, $dryRun: Boolean!) {
  deleteUser(input: {id: $id, dryRun: $dryRun}) {
    __typename
    ... on UserDeletion { userId applied otherUsersNodes kept
      counts { sessions messages memUnits memories } }
    ... on InputError { field }
    ... on Error { message code }
  }
}"""

EVERYTHING = """
query($userId: ID!) {
  user(id: $userId) { id sessions(first: 50) { edges { node { id } } } }
  memories(userId: $userId, first: 100,
           filter: {includeSuperseded: true, includeConsolidated: true, includeDeleted: true}) {
    edges { node { id content } }
  }
}"""


def _user(api: Api, user_id: str, name: str) -> str:
    api.ok(CREATE_USER, {"id": user_id, "name": name})
    session: str = api.ok(CREATE_SESSION, {"userId": user_id})["createSession"]["session"]["id"]
    return session


def _memorize(api: Api, users: list[str], session: str, turns: list[tuple[str, str]]) -> None:
    messages = [{"speaker": s, "content": c} for s, c in turns]
    result = api.ok(
        MEMORIZE, {"input": {"userIds": users, "sessionId": session, "messages": messages}}
    )["memorize"]
    assert result["__typename"] == "Memorized", result


def _held(api: Api, user_id: str) -> dict[str, Any]:
    body = api.post(EVERYTHING, {"userId": user_id})
    return {
        "user": (body.get("data") or {}).get("user"),
        "memories": sorted(
            e["node"]["content"]
            for e in ((body.get("data") or {}).get("memories") or {"edges": []})["edges"]
        ),
    }


def _delete(api: Api, user_id: str, dry_run: bool) -> dict[str, Any]:
    result: dict[str, Any] = api.ok(DELETE_USER, {"id": user_id, "dryRun": dry_run})["deleteUser"]
    return result


def test_a_user_is_forgotten_with_what_derives_only_from_them(api: Api) -> None:
    ann_chat = _user(api, "ann", "Ann")
    _memorize(api, ["ann"], ann_chat, [("Ann", "I moved to Lisbon last month for a new job.")])
    add_memory(api, "ann", "Ann is allergic to peanuts")
    bob_chat = _user(api, "bob", "Bob")
    _memorize(api, ["bob"], bob_chat, [("Bob", "I have been learning the cello since May.")])
    ann_before, bob_before = _held(api, "ann"), _held(api, "bob")
    assert len(ann_before["memories"]) >= 3

    dry = _delete(api, "ann", dry_run=True)
    assert dry["__typename"] == "UserDeletion", dry
    assert dry["applied"] is False
    assert dry["counts"]["sessions"] == 1
    assert dry["counts"]["messages"] == 1
    assert dry["counts"]["memories"] == len(ann_before["memories"])
    assert dry["otherUsersNodes"] == 0
    assert _held(api, "ann") == ann_before  # a dry run changes nothing

    done = _delete(api, "ann", dry_run=False)
    assert done["applied"] is True
    assert done["counts"] == dry["counts"]
    assert api.ok('{ user(id: "ann") { id } }')["user"] is None
    assert (
        api.ok("query($id: ID!) { session(id: $id) { id } }", {"id": ann_chat})["session"] is None
    )
    assert _held(api, "bob") == bob_before  # nobody else's data moved
    again = _delete(api, "ann", dry_run=False)
    assert again["__typename"] == "NotFoundError"


def test_the_jobs_run_for_a_user_go_with_them(api: Api) -> None:
    # A memorize job's record keeps its call's history: the user's own words.
    def memorize(user: str, session: str, history: str) -> str:
        said = {"speaker": user.title(), "content": "I moved to Lisbon last month."}
        call: dict[str, Any] = {"userIds": [user], "sessionId": session, "messages": [said]}
        call["history"] = [{"speaker": user.title(), "content": history}]
        call["async"] = True
        job_id: str = api.ok(MEMORIZE, {"input": call})["memorize"]["job"]["id"]
        done = api.finished_job("query($id: ID!) { job(id: $id) { status } }", job_id)
        assert done["status"] == "SUCCEEDED", done
        return job_id

    ann = memorize("ann", _user(api, "ann", "Ann"), "my bank pin is 4321")
    bob = memorize("bob", _user(api, "bob", "Bob"), "my locker code is 17")
    job = "query($id: ID!) { job(id: $id) { id } }"
    assert api.ok(job, {"id": ann})["job"] == {"id": ann}

    assert _delete(api, "ann", dry_run=False)["applied"] is True

    assert api.ok(job, {"id": ann})["job"] is None
    assert api.ok(job, {"id": bob})["job"] == {"id": bob}


def test_a_group_conversation_goes_with_its_owner_and_a_limited_key_is_refused(
    api: Api,
) -> None:
    chat = _user(api, "ann", "Ann")
    _user(api, "bob", "Bob")
    _memorize(
        api,
        ["ann", "bob"],
        chat,
        [("Ann", "I am training for the Lisbon marathon."), ("Bob", "I adopted a cat named Miso.")],
    )
    bob_before = _held(api, "bob")
    assert any("Miso" in m for m in bob_before["memories"])
    # Ann's own key: deleting her would take Bob's memories of their talk too.
    ann = api.as_key(api.create_key(["ann"]))
    refused = ann.ok(DELETE_USER, {"id": "ann", "dryRun": True})["deleteUser"]
    assert refused["code"] == "CONFLICT", refused
    assert "other users" in refused["message"]
    # Bob is not hers to see.
    hidden = ann.ok(DELETE_USER, {"id": "bob", "dryRun": True})["deleteUser"]
    assert hidden["__typename"] == "NotFoundError"
    assert _held(api, "bob") == bob_before

    # An admin is told, and may.
    dry = _delete(api, "ann", dry_run=True)
    assert dry["otherUsersNodes"] > 0, dry
    _delete(api, "ann", dry_run=False)
    assert not any("Miso" in m for m in _held(api, "bob")["memories"])
    assert api.ok('{ user(id: "bob") { id } }')["user"] == {"id": "bob"}


def test_a_refused_deletion_deletes_none_of_the_sessions_before_the_shared_one(
    api: Api,
) -> None:
    # Sessions are deleted oldest first: Ann's own talk comes before the
    # group one that her key may not delete.
    own = _user(api, "ann", "Ann")
    _memorize(api, ["ann"], own, [("Ann", "I moved to Lisbon last month for a new job.")])
    _user(api, "bob", "Bob")
    group = api.ok(CREATE_SESSION, {"userId": "ann"})["createSession"]["session"]["id"]
    _memorize(api, ["ann", "bob"], group, [("Bob", "I adopted a cat named Miso.")])
    assert own < group
    before = _held(api, "ann")
    ann = api.as_key(api.create_key(["ann"]))

    refused = ann.ok(DELETE_USER, {"id": "ann", "dryRun": False})["deleteUser"]

    assert refused["code"] == "CONFLICT", refused
    assert _held(api, "ann") == before
    assert len(before["user"]["sessions"]["edges"]) == 2


Write = Callable[[Services, int], Awaitable[None]]


def _writes_racing(client: TestClient, monkeypatch: pytest.MonkeyPatch, write: Write) -> list[int]:
    """``write`` for Ann before each of the deletion's tries to delete her user node, as
    a memorize or an addMemory that found her before she went would; the tries."""
    services = client.app.state.runtime.services  # type: ignore[attr-defined]
    store = services.user_deletion._store
    delete_user = store.delete_user
    tries: list[int] = []

    async def after_a_write(user_id: str) -> bool:
        tries.append(len(tries) + 1)
        await write(services, tries[-1])
        return bool(await delete_user(user_id))

    monkeypatch.setattr(store, "delete_user", after_a_write)
    return tries


def test_what_is_written_for_the_user_during_the_deletion_goes_too(
    api: Api, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(api, "ann", "Ann")
    add_memory(api, "ann", "Ann is allergic to peanuts")

    async def once(services: Services, attempt: int) -> None:
        if attempt == 1:
            new = NewMemory(user_id="ann", content="Ann's PIN is 4321")
            await services.memories.add_memory(SETTINGS_ADMIN, new)
            await services.users.create_session(SETTINGS_ADMIN, "ann", "")

    tries = _writes_racing(client, monkeypatch, once)
    done = _delete(api, "ann", dry_run=False)

    assert done["applied"] is True, done
    assert tries == [1, 2]
    # Someone new takes the id: nothing of the first Ann's is theirs.
    api.ok(CREATE_USER, {"id": "ann", "name": "Another Ann"})
    assert _held(api, "ann")["memories"] == []
    assert _held(api, "ann")["user"]["sessions"]["edges"] == []


def test_writes_that_keep_coming_stop_the_deletion_with_a_conflict(
    api: Api, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user(api, "ann", "Ann")

    async def every_time(services: Services, attempt: int) -> None:
        new = NewMemory(user_id="ann", content=f"Ann's note {attempt}")
        await services.memories.add_memory(SETTINGS_ADMIN, new)

    tries = _writes_racing(client, monkeypatch, every_time)
    refused = _delete(api, "ann", dry_run=False)

    assert refused["code"] == "CONFLICT", refused
    assert "kept coming" in refused["message"]
    assert tries == [1, 2, 3]
    assert api.ok('{ user(id: "ann") { id } }')["user"] == {"id": "ann"}
    monkeypatch.undo()
    assert _delete(api, "ann", dry_run=False)["applied"] is True  # once they stop


def test_a_bad_user_id_is_a_clear_error_and_changes_nothing(api: Api) -> None:
    _user(api, "ann", "Ann")
    bad = _delete(api, "not an id!", dry_run=False)
    assert bad["__typename"] == "InputError"
    assert bad["field"] == "id"
    assert _delete(api, "nobody", dry_run=False)["__typename"] == "NotFoundError"
    assert api.ok('{ user(id: "ann") { id } }')["user"] == {"id": "ann"}


def test_the_keys_limited_to_a_deleted_user_lose_them(api: Api) -> None:
    _user(api, "ann", "Ann")
    _user(api, "bob", "Bob")
    hers = api.as_key(api.create_key(["ann"]))
    shared = api.as_key(api.create_key(["ann", "bob"]))
    assert hers.ok('{ user(id: "ann") { id } }')["user"] == {"id": "ann"}
    # A dry run changes no key.
    _delete(api, "ann", dry_run=True)
    assert hers.ok('{ user(id: "ann") { id } }')["user"] == {"id": "ann"}

    assert _delete(api, "ann", dry_run=False)["applied"]
    # A new user "ann" is someone else: Ann's key, revoked, neither reads her
    # nor makes her again, and the key she shared with Bob keeps only Bob.
    _user(api, "ann", "Another Ann")
    add_memory(api, "ann", "The new Ann's secret")
    refused = hers.post('{ user(id: "ann") { id } }')
    assert refused["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED", refused
    assert shared.ok('{ user(id: "ann") { id } }')["user"] is None
    assert shared.ok('{ user(id: "bob") { id } }')["user"] == {"id": "bob"}


async def test_what_a_deleted_user_left_behind_goes_when_an_admin_deletes_them(
    runtime: Runtime,
) -> None:
    # A memory and a session written while their user was deleted outlived
    # the user before their creation needed it: an admin can still delete
    # them by the user's id; a limited key, or an id with nothing left, is
    # told NotFound.
    store = runtime.connection.store
    await add_user(store, "ann")
    session = await add_session(store, "ann")
    left = await add_stored_memory(store, memory("ann", "Ann is allergic to peanuts"))

    async def delete_the_user_node(tx: AsyncManagedTransaction) -> None:
        await fetch(tx, DELETE_USER_NODE, {"user_id": "ann"})

    await store.graph.write(delete_the_user_node)
    deletion = runtime.services.user_deletion
    hers = Principal("key", admin=False, user_ids=frozenset({"ann"}))
    with pytest.raises(NotFound):
        await deletion.delete_user(hers, "ann", dry_run=False)
    with pytest.raises(NotFound):
        await deletion.delete_user(SETTINGS_ADMIN, "nobody", dry_run=False)

    done = await deletion.delete_user(SETTINGS_ADMIN, "ann", dry_run=False)
    assert done.applied
    assert (done.counts["Session"], done.counts["Memory"]) == (1, 1)
    assert await store.memories.get_memories([left.id]) == {}
    assert await store.users.get_sessions([session.id]) == {}
