"""API keys are stored by hash and can be revoked."""

from __future__ import annotations

import pytest

from graph.store import GraphStore
from hippograph.auth import ApiKeyRecord, hash_key
from hippograph.errors import Conflict
from tests.support import T0


async def test_keys_are_found_by_hash_and_revoked(store: GraphStore) -> None:
    record = ApiKeyRecord(
        id="key_01HZZZZZZZZZZZZZZZZZZZZZZZ",
        key_hash=hash_key("hg_secret"),
        name="test",
        admin=False,
        user_ids=("ann",),
        created_at=T0,
    )
    assert not await store.keys.has_admin()
    await store.keys.create(record)
    assert await store.keys.by_hash(hash_key("hg_secret")) == record
    assert await store.keys.by_hash(hash_key("hg_other")) is None
    with pytest.raises(Conflict):
        await store.keys.create(record)
    assert await store.keys.revoke(record.id)
    found = await store.keys.by_hash(record.key_hash)
    assert found is not None
    assert found.revoked
    assert not await store.keys.revoke("key_01HYYYYYYYYYYYYYYYYYYYYYYY")
