"""New content makes a new version, the same way through every mutation that can."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.api.conftest import ADD_MEMORY, Api, seed_user

UPDATE_MEMORY = """
mutation($id: ID!, $content: String!) {
  updateMemory(input: {id: $id, content: $content}) {
    __typename ... on MemoryPayload { memory { id } } ... on Error { message }
  }
}"""

APPLY_UPDATE = """
mutation($userId: ID!, $id: ID!, $content: String!) {
  applyMemoryOps(input: {userId: $userId, ops: [{op: UPDATE, id: $id, content: $content}]}) {
    __typename ... on MemoryOpsApplied { results { memoryId } } ... on Error { message }
  }
}"""

VERSION = "query($id: ID!) { memory(id: $id) { content validFrom validTo } }"


def _update_memory(api: Api, memory_id: str, content: str) -> str:
    result = api.ok(UPDATE_MEMORY, {"id": memory_id, "content": content})["updateMemory"]
    assert result["__typename"] == "MemoryPayload", result
    new_id: str = result["memory"]["id"]
    return new_id


def _apply_update(api: Api, memory_id: str, content: str) -> str:
    variables = {"userId": "ann", "id": memory_id, "content": content}
    result = api.ok(APPLY_UPDATE, variables)["applyMemoryOps"]
    assert result["__typename"] == "MemoryOpsApplied", result
    new_id: str = result["results"][0]["memoryId"]
    return new_id


@pytest.mark.parametrize("supersede", [_update_memory, _apply_update])
def test_a_new_version_is_valid_from_when_the_old_one_stopped_being(
    api: Api, supersede: Callable[[Api, str, str], str]
) -> None:
    seed_user(api, "ann", ["hello"])
    memory = {"userId": "ann", "content": "Ann lives in Paris", "validFrom": "2024-01-01T00:00:00Z"}
    old_id = api.ok(ADD_MEMORY, {"input": memory})["addMemory"]["memory"]["id"]

    new_id = supersede(api, old_id, "Ann lives in Lyon")

    old = api.ok(VERSION, {"id": old_id})["memory"]
    new = api.ok(VERSION, {"id": new_id})["memory"]
    assert (old["content"], new["content"]) == ("Ann lives in Paris", "Ann lives in Lyon")
    assert old["validFrom"].startswith("2024-01-01T00:00:00")  # the old period keeps its start
    assert old["validTo"] is not None
    # The versions follow one another: no time when both (or neither) were valid.
    assert new["validFrom"] == old["validTo"]
    assert new["validTo"] is None
