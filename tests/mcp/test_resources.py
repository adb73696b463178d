"""The profile and reflections resources: JSON for the key's users, not found for others."""

from __future__ import annotations

import json

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, TextResourceContents

from tests.mcp.conftest import ONLY_ON_ARCADEDB, World, data

pytestmark = ONLY_ON_ARCADEDB


async def test_the_resource_templates_are_listed(world: World) -> None:
    async with world.as_alice() as alice:
        templates = (await alice.list_resource_templates()).resource_templates
    assert {t.uri_template for t in templates} == {
        "hippograph://users/{user_id}/profile",
        "hippograph://users/{user_id}/reflections",
    }
    assert all(t.description and t.mime_type == "application/json" for t in templates)


async def test_a_profile_holds_the_user_and_their_profile_attributes(world: World) -> None:
    await world.create_user("dora")
    async with world.as_admin() as admin:
        attribute = data(
            await admin.call_tool(
                "add_memory",
                {"user_id": "dora", "content": "Dora lives in Ghent.", "kind": "PROFILE"},
            )
        )
        data(await admin.call_tool("add_memory", {"user_id": "dora", "content": "Dora sings."}))
        read = await admin.read_resource("hippograph://users/dora/profile")

    contents = read.contents[0]
    assert isinstance(contents, TextResourceContents)
    body = json.loads(contents.text)
    assert body["user"]["id"] == "dora"
    assert [(a["id"], a["content"]) for a in body["attributes"]] == [
        (attribute["memoryId"], "Dora lives in Ghent.")
    ]


@pytest.mark.parametrize("resource", ["profile", "reflections"])
async def test_another_users_resource_is_not_found(world: World, resource: str) -> None:
    uri = f"hippograph://users/bob/{resource}"
    async with world.as_alice() as alice:
        with pytest.raises(MCPError) as refused:
            await alice.read_resource(uri)
        with pytest.raises(MCPError) as missing:
            await alice.read_resource(f"hippograph://users/nobody/{resource}")

    # Bob exists but is not alice's: the same answer as a user that does not exist.
    assert refused.value.error.code == INVALID_PARAMS
    assert refused.value.error.data == {
        "code": "NOT_FOUND",
        "message": "user 'bob' not found",
        "uri": uri,
    }
    assert missing.value.error.data is not None
    assert missing.value.error.data["code"] == "NOT_FOUND"
