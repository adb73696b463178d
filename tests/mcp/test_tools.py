"""Every tool through the SDK's client, in-process: what it does and what it refuses."""

from __future__ import annotations

import json
from typing import Any

from mcp import Client
from mcp_types import TextResourceContents

from tests.api.conftest import ANN_FACTS_BY_THEME
from tests.mcp.conftest import ONLY_ON_ARCADEDB, World, data, error

# Two themes of important facts: what a reflect run consolidates into two reflections.
FACTS = [fact for facts in ANN_FACTS_BY_THEME.values() for fact in facts]

MEMORIES = """
query($userId: ID!) {
  memories(userId: $userId, first: 100, filter: {includeSuperseded: true, includeDeleted: true}) {
    edges { node { id content level importance deletedAt validTo } }
  }
}"""

pytestmark = ONLY_ON_ARCADEDB


SESSIONS = """
query($userId: ID!) { user(id: $userId) { sessions(first: 100) { edges { node { id } } } } }"""


async def sessions(world: World, user_id: str) -> list[str]:
    """The ids of ``user_id``'s sessions, as the admin reads them over GraphQL."""
    found = await world.admin(SESSIONS, {"userId": user_id})
    return [edge["node"]["id"] for edge in found["user"]["sessions"]["edges"]]


async def memories(world: World, user_id: str) -> list[dict[str, Any]]:
    """Every memory of ``user_id``, as the admin reads it over GraphQL."""
    found = await world.admin(MEMORIES, {"userId": user_id})
    return [edge["node"] for edge in found["memories"]["edges"]]


async def alice_memorizes(alice: Client, *texts: str) -> dict[str, Any]:
    """The memorize tool's answer for alice's ``texts``, said by her in a new session."""
    messages = [{"speaker": "alice", "content": text} for text in texts]
    return data(await alice.call_tool("memorize", {"user_id": "alice", "messages": messages}))


async def test_the_tools_are_listed_with_typed_described_inputs(world: World) -> None:
    async with world.as_admin() as admin:
        tools = {tool.name: tool for tool in (await admin.list_tools()).tools}

        assert set(tools) == {
            "memorize",
            "search",
            "add_memory",
            "update_memory",
            "delete_memory",
            "provenance",
            "reflect",
            "forget",
            "list_users",
            "create_user",
            "list_memories",
            "delete_user",
            "get_job",
        }
        search = tools["search"].input_schema
        assert search["required"] == ["user_id", "query"]
        method = search["properties"]["method"]
        assert method["default"] == "HYBRID"
        offered = search["$defs"][method["$ref"].rsplit("/", 1)[1]]["enum"]
        assert set(offered) == {"HYBRID", "VECTOR", "KEYWORD"}
        for tool in tools.values():
            assert tool.description
            for name, prop in tool.input_schema["properties"].items():
                assert prop.get("description"), (tool.name, name)
        assert tools["forget"].input_schema["properties"]["dry_run"]["default"] is True
        assert tools["forget"].annotations is not None
        assert tools["forget"].annotations.destructive_hint is True
        assert tools["delete_user"].input_schema["properties"]["dry_run"]["default"] is True


async def test_memorize_then_search_returns_hits_with_their_score_breakdown(world: World) -> None:
    async with world.as_alice() as alice:
        remembered = await alice_memorizes(
            alice,
            "I moved to Lisbon last spring for work.",
            "My sister Clara is a violinist in Porto.",
        )
        assert remembered["finished"] is True
        assert remembered["created"] == 2
        assert remembered["sessionId"].startswith("ses_")
        assert remembered["counts"]["memories"] > 0

        found = data(
            await alice.call_tool("search", {"user_id": "alice", "query": "Where does alice live?"})
        )
        assert found["method"] == "HYBRID"
        top = found["hits"][0]
        assert "Lisbon" in top["memory"]["content"]
        assert top["memory"]["userId"] == "alice"
        breakdown = top["breakdown"]
        assert breakdown["final"] == top["score"]
        assert breakdown["semantic"] is not None
        assert breakdown["semantic"] > 0
        assert {"keyword", "relevance", "recency", "importance", "methods"} <= set(breakdown)

        # The same session takes the next turns: no new session per call.
        again = data(
            await alice.call_tool(
                "memorize",
                {
                    "user_id": "alice",
                    "session_id": remembered["sessionId"],
                    "messages": [{"speaker": "alice", "content": "I play chess on Sundays."}],
                },
            )
        )
        assert again["sessionId"] == remembered["sessionId"]
        assert again["messages"][0]["seq"] > remembered["messages"][-1]["seq"]


async def test_add_update_and_delete_a_memory_through_memory_ops(world: World) -> None:
    async with world.as_alice() as alice:
        added = data(
            await alice.call_tool(
                "add_memory",
                {"user_id": "alice", "content": "Alice is allergic to peanuts.", "importance": 0.9},
            )
        )
        assert added["op"] == "ADD"
        memory_id = added["memoryId"]
        assert added["memory"]["content"] == "Alice is allergic to peanuts."
        assert added["memory"]["importance"] == 0.9

        updated = data(
            await alice.call_tool(
                "update_memory",
                {
                    "user_id": "alice",
                    "memory_id": memory_id,
                    "content": "Alice is allergic to peanuts and cashews.",
                },
            )
        )
        assert updated["supersededId"] == memory_id
        new_id = updated["memoryId"]
        assert new_id != memory_id
        assert updated["memory"]["content"] == "Alice is allergic to peanuts and cashews."

        deleted = data(
            await alice.call_tool("delete_memory", {"user_id": "alice", "memory_id": new_id})
        )
        assert deleted["op"] == "DELETE"
        stored = {m["id"]: m for m in await memories(world, "alice")}
        assert stored[memory_id]["validTo"] is not None  # superseded, kept
        assert stored[new_id]["deletedAt"] is not None  # soft-deleted, kept


async def test_importance_alone_is_changed_in_place_on_the_users_own_memory(
    world: World,
) -> None:
    async with world.as_alice() as alice:
        added = data(
            await alice.call_tool("add_memory", {"user_id": "alice", "content": "Alice sings."})
        )
        memory_id = added["memoryId"]
        raised = data(
            await alice.call_tool(
                "update_memory", {"user_id": "alice", "memory_id": memory_id, "importance": 0.9}
            )
        )
        assert (raised["op"], raised["memoryId"], raised["supersededId"]) == (
            "UPDATE",
            memory_id,
            None,
        )
        assert raised["memory"]["importance"] == 0.9
        assert raised["memory"]["content"] == "Alice sings."

        nothing = error(
            await alice.call_tool("update_memory", {"user_id": "alice", "memory_id": memory_id})
        )
        assert (nothing["code"], nothing["field"]) == ("BAD_USER_INPUT", "content")
    async with world.as_admin() as admin:
        # Alice's memory, named as Bob's: refused, as an operation would be.
        wrong = error(
            await admin.call_tool(
                "update_memory", {"user_id": "bob", "memory_id": memory_id, "importance": 0.1}
            )
        )
        assert wrong["code"] == "NOT_FOUND"
    stored = {m["id"]: m for m in await memories(world, "alice")}
    assert stored[memory_id]["importance"] == 0.9


async def test_provenance_walks_from_a_memory_down_to_its_messages(world: World) -> None:
    async with world.as_alice() as alice:
        remembered = await alice_memorizes(alice, "My dog Biscuit is a beagle.")
        hit = data(
            await alice.call_tool(
                "search", {"user_id": "alice", "query": "Biscuit the beagle", "touch": False}
            )
        )["hits"][0]
        message_id = remembered["messages"][0]["id"]

        walk = data(await alice.call_tool("provenance", {"id": hit["memory"]["id"]}))

        assert walk["root"]["id"] == hit["memory"]["id"]
        messages = [n for n in walk["nodes"] if n["type"] == "Message"]
        assert [m["id"] for m in messages] == [message_id]
        assert messages[0]["text"] == "My dog Biscuit is a beagle."
        assert all(path["target"] == message_id for path in walk["paths"])


async def test_reflect_waits_for_its_job_and_its_reflection_is_a_resource(
    world: World,
) -> None:
    await world.create_user("ann")
    async with world.as_admin() as admin:
        for content, importance in FACTS:
            added = await admin.call_tool(
                "add_memory", {"user_id": "ann", "content": content, "importance": importance}
            )
            data(added)

        reflected = data(await admin.call_tool("reflect", {"user_id": "ann", "wait_seconds": 60}))
        assert reflected["finished"] is True
        assert reflected["job"]["kind"] == "REFLECT"
        assert reflected["job"]["status"] == "SUCCEEDED"
        assert reflected["job"]["counts"]["reflections"] == 2
        job = data(await admin.call_tool("get_job", {"job_id": reflected["job"]["id"]}))
        assert job == reflected["job"]

        read = await admin.read_resource("hippograph://users/ann/reflections")
    contents = read.contents[0]
    assert isinstance(contents, TextResourceContents)
    assert contents.mime_type == "application/json"
    body = json.loads(contents.text)
    assert body["user"]["id"] == "ann"
    assert [r["kind"] for r in body["reflections"]] == ["REFLECTION", "REFLECTION"]


async def test_forget_is_a_dry_run_unless_asked_otherwise(world: World) -> None:
    async with world.as_alice() as alice:
        # Two of her own, so a capacity of one has something to delete whatever
        # the module's other tests left (the database is the module's).
        for content in ("Alice once had a red kite.", "Alice flew it on the dunes."):
            data(await alice.call_tool("add_memory", {"user_id": "alice", "content": content}))
        before = await memories(world, "alice")

        report = data(
            await alice.call_tool(
                "forget",
                {
                    "user_id": "alice",
                    "policy": "HARD_DELETE",
                    "strategy": "CAPACITY_BASED",
                    "max_capacity": 1,
                },
            )
        )

        assert report["dryRun"] is True
        assert report["counts"]["hardDeleted"] > 0  # what it would have deleted
        assert await memories(world, "alice") == before


async def test_list_users_shows_only_the_keys_users(world: World) -> None:
    async with world.as_admin() as admin, world.as_alice() as alice:
        assert [u["id"] for u in data(await alice.call_tool("list_users", {}))["users"]] == [
            "alice"
        ]
        everyone = data(await admin.call_tool("list_users", {}))["users"]
        assert {"alice", "bob"} <= {u["id"] for u in everyone}


async def test_an_agent_starts_a_memory_with_create_user_and_lists_it(world: World) -> None:
    async with world.as_admin() as admin, world.as_alice() as alice:
        made = data(await admin.call_tool("create_user", {"user_id": "carol", "name": "Carol"}))
        assert made["user"]["id"] == "carol"
        assert made["user"]["name"] == "Carol"
        again = error(await admin.call_tool("create_user", {"user_id": "carol", "name": "C"}))
        assert again["code"] == "CONFLICT"
        # A key limited to alice makes no one else.
        other = error(await alice.call_tool("create_user", {"user_id": "dave", "name": "Dave"}))
        assert other["code"] == "FORBIDDEN"
        bad = error(await admin.call_tool("create_user", {"user_id": "no spaces", "name": "X"}))
        assert bad["code"] == "BAD_USER_INPUT"

        await admin.call_tool(
            "memorize",
            {
                "user_id": "carol",
                "messages": [{"speaker": "Carol", "content": "I keep bees on my roof in Ghent."}],
            },
        )
        page = data(await admin.call_tool("list_memories", {"user_id": "carol", "first": 50}))
        assert any("bees" in m["content"] for m in page["memories"])
        assert page["hasNextPage"] is False
        events = data(
            await admin.call_tool("list_memories", {"user_id": "carol", "kinds": ["EVENT"]})
        )
        assert events["memories"]
        assert {m["kind"] for m in events["memories"]} == {"EVENT"}
        first = data(await admin.call_tool("list_memories", {"user_id": "carol", "first": 1}))
        assert len(first["memories"]) == 1
        rest = data(
            await admin.call_tool(
                "list_memories",
                {"user_id": "carol", "first": 50, "after": first["endCursor"]},
            )
        )
        assert first["memories"][0]["id"] not in {m["id"] for m in rest["memories"]}
        missing = error(await admin.call_tool("list_memories", {"user_id": "nobody"}))
        assert missing["code"] == "NOT_FOUND"

        # Carol asks to be forgotten: a dry run first, then for real.
        dry = data(await admin.call_tool("delete_user", {"user_id": "carol"}))
        assert (dry["applied"], dry["counts"]["sessions"]) == (False, 1)
        assert data(await admin.call_tool("list_memories", {"user_id": "carol"}))["memories"]
        done = data(await admin.call_tool("delete_user", {"user_id": "carol", "dry_run": False}))
        assert done["applied"] is True
        assert done["counts"] == dry["counts"]
        gone = error(await admin.call_tool("list_memories", {"user_id": "carol"}))
        assert gone["code"] == "NOT_FOUND"


async def test_a_key_for_alice_finds_nothing_of_bobs_and_changes_nothing(world: World) -> None:
    async with world.as_admin() as admin, world.as_alice() as alice:
        bobs = data(
            await admin.call_tool("add_memory", {"user_id": "bob", "content": "Bob hides keys."})
        )["memoryId"]
        before = await memories(world, "bob")

        attempts: list[tuple[str, dict[str, Any]]] = [
            ("search", {"user_id": "bob", "query": "keys"}),
            ("add_memory", {"user_id": "bob", "content": "Bob is mine now."}),
            ("update_memory", {"user_id": "bob", "memory_id": bobs, "content": "changed"}),
            ("delete_memory", {"user_id": "bob", "memory_id": bobs, "hard": True}),
            ("delete_memory", {"user_id": "alice", "memory_id": bobs}),
            ("provenance", {"id": bobs}),
            ("reflect", {"user_id": "bob", "force": True}),
            ("forget", {"user_id": "bob", "dry_run": False, "policy": "SOFT_DELETE"}),
            ("memorize", {"user_id": "bob", "messages": [{"speaker": "x", "content": "hi"}]}),
            ("list_memories", {"user_id": "bob"}),
            ("delete_user", {"user_id": "bob", "dry_run": False}),
        ]
        for tool, arguments in attempts:
            assert error(await alice.call_tool(tool, arguments))["code"] == "NOT_FOUND", tool

        assert await memories(world, "bob") == before


async def test_bad_inputs_are_clear_tool_errors_and_change_nothing(world: World) -> None:
    async with world.as_alice() as alice:
        before = await memories(world, "alice")
        sessions_before = await sessions(world, "alice")

        too_many = error(
            await alice.call_tool("search", {"user_id": "alice", "query": "x", "top_k": 100000})
        )
        assert too_many["code"] == "BAD_USER_INPUT"
        assert "topK" in too_many["message"]

        no_strategy = error(
            await alice.call_tool(
                "forget", {"user_id": "alice", "policy": "HARD_DELETE", "dry_run": False}
            )
        )
        assert no_strategy["code"] == "BAD_USER_INPUT"
        assert no_strategy["field"] == "strategy"

        no_session = error(
            await alice.call_tool(
                "memorize",
                {
                    "user_id": "alice",
                    "session_id": "ses_00000000000000000000000000",
                    "messages": [{"speaker": "alice", "content": "lost"}],
                },
            )
        )
        assert no_session["code"] == "NOT_FOUND"

        bad_time = error(
            await alice.call_tool(
                "memorize",
                {
                    "user_id": "alice",
                    "messages": [{"speaker": "alice", "content": "when?", "ts": "yesterday"}],
                },
            )
        )
        assert bad_time["code"] == "BAD_USER_INPUT"
        assert bad_time["field"] == "messages[0].ts"
        # Refused by the API, after the tool started a session for it.
        blank = error(
            await alice.call_tool(
                "memorize",
                {"user_id": "alice", "messages": [{"speaker": "alice", "content": "   "}]},
            )
        )
        assert (blank["code"], blank["field"]) == ("BAD_USER_INPUT", "messages[0].content")

        empty = error(await alice.call_tool("search", {"user_id": "alice", "query": ""}))
        assert empty == {
            "code": "BAD_USER_INPUT",
            "message": "query must not be empty",
            "field": "query",
        }
        no_job = error(
            await alice.call_tool("get_job", {"job_id": "job_01HZZZZZZZZZZZZZZZZZZZZZZZ"})
        )
        assert (no_job["code"], no_job["field"]) == ("NOT_FOUND", "jobId")
        not_an_id = error(await alice.call_tool("provenance", {"id": "nope"}))
        assert not_an_id["code"] == "BAD_USER_INPUT"
        assert not_an_id["field"] == "id"

        # Arguments that do not fit a tool's schema are refused by the SDK, by name.
        wrong_type = await alice.call_tool(
            "search", {"user_id": "alice", "query": "x", "top_k": "ten"}
        )
        assert wrong_type.is_error
        assert "top_k" in str(wrong_type.content)
        unknown_method = await alice.call_tool(
            "search", {"user_id": "alice", "query": "x", "method": "TELEPATHY"}
        )
        assert unknown_method.is_error
        assert "method" in str(unknown_method.content)
        missing = await alice.call_tool("add_memory", {"user_id": "alice"})
        assert missing.is_error
        assert "content" in str(missing.content)

        assert await memories(world, "alice") == before
        # bad_time's memorize started no session, and the one blank's made is gone again.
        assert await sessions(world, "alice") == sessions_before


async def test_a_revoked_key_is_refused_at_the_next_call(world: World) -> None:
    record, key = await world.runtime.services.keys.issue("brief", False, ["alice"])
    async with world.client(key) as client:
        assert data(await client.call_tool("list_users", {}))["users"]
        await world.admin(
            "mutation($id: ID!) { revokeApiKey(id: $id) { __typename } }", {"id": record.id}
        )
        refused = error(await client.call_tool("list_users", {}))
    assert refused["code"] == "UNAUTHENTICATED"
