"""Users and sessions in the store."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graph.store import GraphStore
from hippograph.errors import Conflict
from hippograph.pagination import TimeCursor
from tests.support import T0, add_session, add_user


async def test_a_user_id_is_unique(store: GraphStore) -> None:
    await add_user(store, "ann")
    with pytest.raises(Conflict, match="'ann' already exists"):
        await add_user(store, "ann")
    assert list(await store.users.get_users(["ann", "bob"])) == ["ann"]


async def test_a_session_needs_an_existing_user(store: GraphStore) -> None:
    from hippograph.ids import IdKind, new_id
    from hippograph.models import Session

    orphan = Session(id=new_id(IdKind.SESSION, T0), user_id="nobody", title="", started_at=T0)
    assert not await store.users.create_session(orphan)
    assert await store.users.get_sessions([orphan.id]) == {}


async def test_sessions_page_newest_first_per_user(store: GraphStore) -> None:
    await add_user(store, "ann")
    await add_user(store, "bob")
    made = [await add_session(store, "ann", T0 + timedelta(hours=i)) for i in range(5)]
    await add_session(store, "bob")
    pages = await store.users.sessions_of_users(["ann", "bob", "nobody"], 3, None)
    assert [s.id for s in pages["ann"].items] == [s.id for s in reversed(made)][:3]
    assert pages["ann"].has_next
    assert len(pages["bob"].items) == 1
    assert pages["nobody"].items == ()
    last = pages["ann"].items[-1]
    rest = await store.users.sessions_of_users(["ann"], 3, TimeCursor(last.started_at, last.id))
    assert [s.id for s in rest["ann"].items] == [made[1].id, made[0].id]
    assert not rest["ann"].has_next
