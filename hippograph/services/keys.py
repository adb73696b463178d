"""API keys: create, revoke, authenticate (with a short cache)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from cachetools import LRUCache, TTLCache

from hippograph.auth import ApiKeyRecord, Principal, generate_key, hash_key, keys_match
from hippograph.clock import Clock
from hippograph.errors import Forbidden, InvalidInput, Unauthenticated
from hippograph.ids import IdKind, new_id, require_user_id
from hippograph.validation import require_count, require_line


class KeyStore(Protocol):
    """API keys by hash."""

    async def create(self, record: ApiKeyRecord) -> None: ...
    async def by_hash(self, key_hash: str) -> ApiKeyRecord | None: ...
    async def list(self) -> list[ApiKeyRecord]: ...
    async def revoke(self, key_id: str) -> bool: ...
    async def has_admin(self) -> bool: ...


SETTINGS_ADMIN = Principal(key_id="settings-admin", admin=True)
_MAX_KEY_USERS = 1000
# Entries per cache; past it the least recently used entry goes, not the lot.
_CACHED_KEYS = 10_000


class KeyService:
    """Turns presented keys into principals; manages stored keys."""

    def __init__(
        self,
        store: KeyStore,
        clock: Clock,
        admin_key: str | None,
        cache_ttl_s: float,
        *,
        cache_size: int = _CACHED_KEYS,
    ) -> None:
        self._store = store
        self._clock = clock
        self._admin_hash = hash_key(admin_key) if admin_key else None
        # Known and unknown keys are cached apart so that a flood of bad keys
        # only ever evicts other bad keys, never a working client's entry.
        self._known: TTLCache[str, Principal] = TTLCache(cache_size, cache_ttl_s)
        self._unknown: TTLCache[str, bool] = TTLCache(cache_size, cache_ttl_s)
        # Keys that have worked here, for good: one whose cache entry has
        # lapsed is still looked up while its address is over its budget
        # (others behind the same address guessing keys must not lock it out).
        self._worked: LRUCache[str, bool] = LRUCache(cache_size)

    async def authenticate(self, key: str | None, look_up: bool = True) -> Principal:
        """The principal behind ``key``; ``Unauthenticated`` if missing, unknown or revoked.

        Lookups are cached for ``cache_ttl_s`` (misses too), so a revoked key
        stops working within that time and a flood of bad keys costs no reads.
        Without ``look_up`` a key that has never worked here is refused
        without a read (a caller guessing keys faster than its budget); one
        that has is looked up as ever, so a revocation still holds.
        """
        if not key:
            raise Unauthenticated("send an API key: Authorization: Bearer <key>")
        if self._admin_hash is not None and keys_match(key, self._admin_hash):
            return SETTINGS_ADMIN
        if len(key) > 256:
            raise Unauthenticated("unknown API key")
        digest = hash_key(key)
        principal = self._known.get(digest)
        if principal is not None:
            return principal
        if not look_up and digest not in self._worked:
            raise Unauthenticated("unknown API key")
        if digest not in self._unknown:
            record = await self._store.by_hash(digest)
            if record is not None and not record.revoked:
                principal = self._known[digest] = record.principal()
                self._worked[digest] = True
                return principal
            self._unknown[digest] = True
        raise Unauthenticated("unknown or revoked API key")

    async def create_key(
        self, principal: Principal, name: str, admin: bool, user_ids: Sequence[str]
    ) -> tuple[ApiKeyRecord, str]:
        """A new key (returned once, in plain text) and its stored record; admins only."""
        if not principal.admin:
            raise Forbidden("only an admin key may create API keys")
        return await self.issue(name, admin, user_ids)

    async def issue(
        self, name: str, admin: bool, user_ids: Sequence[str]
    ) -> tuple[ApiKeyRecord, str]:
        """Create and store a key without a principal check (the CLI, first start)."""
        name = require_line(name, "name", 200)
        require_count(len(user_ids), "userIds", 0, _MAX_KEY_USERS)
        if admin and user_ids:
            # Stored and shown, they would say the key is limited to them.
            raise InvalidInput("an admin key sees every user: give it no userIds", "userIds")
        for index, user_id in enumerate(user_ids):
            require_user_id(user_id, f"userIds[{index}]")
        if not admin and not user_ids:
            raise InvalidInput("a key that is not admin needs at least one user id", "userIds")
        key = generate_key()
        now = self._clock()
        record = ApiKeyRecord(
            id=new_id(IdKind.API_KEY, now),
            key_hash=hash_key(key),
            name=name,
            admin=admin,
            user_ids=tuple(dict.fromkeys(user_ids)),
            created_at=now,
        )
        await self._store.create(record)
        return record, key

    async def revoke(self, principal: Principal, key_id: str) -> bool:
        """Revoke a stored key; admins only."""
        if not principal.admin:
            raise Forbidden("only an admin key may revoke API keys")
        self._known.clear()
        return await self._store.revoke(key_id)

    async def list_keys(self) -> list[ApiKeyRecord]:
        """Every stored key (hashes only)."""
        return await self._store.list()

    async def has_admin(self) -> bool:
        """Whether an admin key exists in settings or in the store."""
        return self._admin_hash is not None or await self._store.has_admin()
