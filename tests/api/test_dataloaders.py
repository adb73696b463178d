"""Nested fields are batched: N parents cost one store call per field, not N."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.testclient import TestClient

from tests.api.conftest import ADD_MESSAGES, CREATE_SESSION, Api, add_memory, seed_user


def _count_calls(client: TestClient, store_attr: str, method: str) -> list[int]:
    """Wrap a real store method to count its calls (it still runs)."""
    store = getattr(client.app.state.runtime.connection.store, store_attr)  # type: ignore[attr-defined]
    real: Callable[..., Any] = getattr(store, method)
    calls: list[int] = []

    async def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(len(args[0]))
        return await real(*args, **kwargs)

    setattr(store, method, counted)
    return calls


def test_sessions_messages_and_sources_are_batched(api: Api, client: TestClient) -> None:
    _, messages = seed_user(api, "ann", ["first"])
    for i in range(4):
        session = api.ok(CREATE_SESSION, {"userId": "ann"})["createSession"]["session"]["id"]
        api.ok(
            ADD_MESSAGES,
            {"sessionId": session, "messages": [{"speaker": "ann", "content": f"m{i}"}]},
        )
    for i in range(5):
        add_memory(api, "ann", f"memory {i}", messages)
    session_calls = _count_calls(client, "messages", "messages_of_sessions")
    source_calls = _count_calls(client, "memories", "derived_from")
    user_calls = _count_calls(client, "users", "get_users")
    data = api.ok(
        """{ user(id: "ann") { sessions(first: 10) { edges { node {
               user { id } messages(first: 5) { edges { node { content } } } } } } }
             memories(userId: "ann") { edges { node { user { id } derivedFrom { id } } } } }"""
    )
    assert len(data["user"]["sessions"]["edges"]) == 5
    assert all(len(e["node"]["derivedFrom"]) == 1 for e in data["memories"]["edges"])
    assert session_calls == [5]
    assert source_calls == [5]
    # `user` at the root, then every session's and memory's `user`: two batches.
    assert len(user_calls) <= 2
