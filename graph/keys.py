"""API keys, stored by hash."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graph.cypher import cypher
from graph.driver import GraphDriver
from graph.records import to_utc
from hippograph.auth import ApiKeyRecord

_KEY_MAP = "{.id, .key_hash, .name, .admin, .user_ids, .created_at, .revoked}"

CREATE_KEY = cypher(
    "keys.CREATE_KEY",
    "CREATE (k:ApiKey {id: $id, key_hash: $key_hash, name: $name, admin: $admin, "
    "user_ids: $user_ids, created_at: $created_at, revoked: false}) RETURN k.id AS id",
)
KEY_BY_HASH = cypher(
    "keys.KEY_BY_HASH",
    "MATCH (k:ApiKey {key_hash: $key_hash}) RETURN k " + _KEY_MAP + " AS props",
)
LIST_KEYS = cypher(
    "keys.LIST_KEYS",
    "MATCH (k:ApiKey) RETURN k " + _KEY_MAP + " AS props ORDER BY k.created_at, k.id",
)
REVOKE_KEY = cypher(
    "keys.REVOKE_KEY",
    "MATCH (k:ApiKey {id: $id}) SET k.revoked = true RETURN k.id AS id",
)
HAS_ADMIN_KEY = cypher(
    "keys.HAS_ADMIN_KEY",
    "MATCH (k:ApiKey) WHERE k.admin = true AND NOT k.revoked RETURN count(k) AS n",
)


def _record(p: Mapping[str, Any]) -> ApiKeyRecord:
    return ApiKeyRecord(
        id=p["id"],
        key_hash=p["key_hash"],
        name=p["name"],
        admin=bool(p["admin"]),
        user_ids=tuple(p.get("user_ids") or ()),
        created_at=to_utc(p["created_at"]),
        revoked=bool(p.get("revoked")),
    )


class KeyGraph:
    """API keys in the graph."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def create(self, record: ApiKeyRecord) -> None:
        """Store a new key record."""
        params = {
            "id": record.id,
            "key_hash": record.key_hash,
            "name": record.name,
            "admin": record.admin,
            "user_ids": list(record.user_ids),
            "created_at": record.created_at,
        }
        await self._graph.write_rows(CREATE_KEY, params)

    async def by_hash(self, key_hash: str) -> ApiKeyRecord | None:
        """The key stored under ``key_hash``, if any."""
        rows = await self._graph.query(KEY_BY_HASH, {"key_hash": key_hash})
        return _record(rows[0]["props"]) if rows else None

    async def list(self) -> list[ApiKeyRecord]:
        """Every key record, oldest first."""
        return [_record(row["props"]) for row in await self._graph.query(LIST_KEYS)]

    async def revoke(self, key_id: str) -> bool:
        """Revoke a key; False if there is no such key."""
        return bool(await self._graph.write_rows(REVOKE_KEY, {"id": key_id}))

    async def has_admin(self) -> bool:
        """Whether any admin key that is not revoked exists."""
        rows = await self._graph.query(HAS_ADMIN_KEY)
        return int(rows[0]["n"]) > 0
