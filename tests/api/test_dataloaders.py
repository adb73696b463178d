"""Nested fields are batched: N parents cost one store call per field, not N."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.testclient import TestClient

from hippograph.services.keys import SETTINGS_ADMIN
from resolvers.loaders import build_loaders
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


def test_loaders_without_a_cache_answer_a_key_asked_twice_once_each(
    api: Api, client: TestClient
) -> None:
    # A websocket connection's loaders keep no cache, so one batch may hold a
    # key twice (two sources of one memory in one session): each answer must
    # still be that key's, not its rows twice.
    session, messages = seed_user(api, "ann", ["first", "second", "third"])
    fact = add_memory(api, "ann", "Ann said three things", messages)
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    loaders = build_loaders(runtime.services, SETTINGS_ADMIN, cache=False)

    async def twice() -> tuple[Any, Any]:
        pages = asyncio.gather(
            loaders.session_messages.load((session, 5, None)),
            loaders.session_messages.load((session, 5, None)),
        )
        sources = asyncio.gather(loaders.derived_from.load(fact), loaders.derived_from.load(fact))
        return await pages, await sources

    pages, sources = client.portal.call(twice)  # type: ignore[union-attr]
    for page in pages:
        assert [m.content for m in page.items] == ["first", "second", "third"]
        assert not page.has_next
    for nodes in sources:
        assert sorted(n.id for n in nodes) == sorted(messages)
