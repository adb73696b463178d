"""API keys are stored by hash and can be revoked."""

from __future__ import annotations

import pytest

from graph.store import GraphStore
from hippograph.admission import Refused, admit
from hippograph.auth import ApiKeyRecord, hash_key
from hippograph.errors import Conflict, Unauthenticated
from hippograph.ratelimit import RateLimiter
from hippograph.services.keys import KeyService, KeyStore
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


class _CountedReads:
    """The graph's key store, counting the lookups that reach it by hash."""

    def __init__(self, keys: KeyStore) -> None:
        self._keys = keys
        self.reads: list[str] = []

    async def create(self, record: ApiKeyRecord) -> None:
        await self._keys.create(record)

    async def by_hash(self, key_hash: str) -> ApiKeyRecord | None:
        self.reads.append(key_hash)
        return await self._keys.by_hash(key_hash)

    async def list(self) -> list[ApiKeyRecord]:
        return await self._keys.list()

    async def revoke(self, key_id: str) -> bool:
        return await self._keys.revoke(key_id)

    async def has_admin(self) -> bool:
        return await self._keys.has_admin()


def _counting(store: GraphStore, cache_size: int) -> tuple[_CountedReads, KeyService]:
    """A key service over ``store`` whose key lookups are counted."""
    counted = _CountedReads(store.keys)
    return counted, KeyService(counted, lambda: T0, None, cache_ttl_s=600, cache_size=cache_size)


async def test_a_flood_of_bad_keys_does_not_evict_a_good_keys_cache_entry(
    store: GraphStore,
) -> None:
    counted, keys = _counting(store, 50)
    record, good = await keys.issue("client", admin=False, user_ids=["ann"])
    assert (await keys.authenticate(good)).key_id == record.id
    for n in range(200):
        with pytest.raises(Unauthenticated):
            await keys.authenticate(f"hg_bad_{n}")
    assert (await keys.authenticate(good)).key_id == record.id
    assert counted.reads.count(hash_key(good)) == 1
    # The bad keys are cached too, up to the cache's size: the latest costs no read.
    with pytest.raises(Unauthenticated):
        await keys.authenticate("hg_bad_199")
    assert len(counted.reads) == 1 + 200


async def test_a_revoked_key_stops_working_at_once_in_this_process(store: GraphStore) -> None:
    keys = KeyService(store.keys, lambda: T0, None, cache_ttl_s=600)
    admin, _ = await keys.issue("admin", admin=True, user_ids=[])
    record, key = await keys.issue("client", admin=False, user_ids=["ann"])
    await keys.authenticate(key)
    assert await keys.revoke(admin.principal(), record.id)
    with pytest.raises(Unauthenticated):
        await keys.authenticate(key)


async def test_an_address_over_its_budget_guesses_keys_without_graph_reads(
    store: GraphStore,
) -> None:
    counted, keys = _counting(store, 500)
    _, good = await keys.issue("client", admin=False, user_ids=["ann"])
    _, other = await keys.issue("other", admin=False, user_ids=["bob"])
    await keys.authenticate(good)  # known: cached
    limiter = RateLimiter(rate=0.001, burst=3)
    statuses = []
    for n in range(50):
        with pytest.raises(Refused) as refused:
            await admit(keys, limiter, f"Bearer hg_bad_{n}", "10.0.0.9", anonymous=False)
        statuses.append(refused.value.status)
    assert statuses == [401] * 3 + [429] * 47
    # Three guesses were looked up (the budget); the rest cost no read.
    assert len(counted.reads) == 1 + 3
    # A key that has worked still comes in, also once its cache entry lapses
    # (others behind one address must not lock it out); one never seen waits.
    assert (await admit(keys, limiter, f"Bearer {good}", "10.0.0.9", anonymous=False)).principal
    keys._known.clear()  # its cache entry lapsed
    assert (await admit(keys, limiter, f"Bearer {good}", "10.0.0.9", anonymous=False)).principal
    with pytest.raises(Refused) as waiting:
        await admit(keys, limiter, f"Bearer {other}", "10.0.0.9", anonymous=False)
    assert waiting.value.status == 429
    assert (await admit(keys, limiter, f"Bearer {other}", "10.0.0.10", anonymous=False)).principal
