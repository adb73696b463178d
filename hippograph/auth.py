"""API keys and the principals they stand for.

A key is shown once, when it is created; the graph keeps only its SHA-256.
A principal is either admin (sees every user) or limited to a set of user ids:
everything of any other user is "not found" to it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

KEY_PREFIX = "hg_"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: the key's id, and what it may see."""

    key_id: str
    admin: bool
    user_ids: frozenset[str] = frozenset()

    def can_access(self, user_id: str) -> bool:
        """Whether this principal may see and change ``user_id``'s data."""
        return self.admin or user_id in self.user_ids

    @property
    def scope(self) -> list[str] | None:
        """The user ids to filter graph reads by; None means everyone (admin)."""
        return None if self.admin else sorted(self.user_ids)


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    """A stored key: never the key itself, only its hash."""

    id: str
    key_hash: str
    name: str
    admin: bool
    user_ids: tuple[str, ...]
    created_at: datetime
    revoked: bool = False

    def principal(self) -> Principal:
        """The principal this key authenticates as."""
        return Principal(key_id=self.id, admin=self.admin, user_ids=frozenset(self.user_ids))


def generate_key() -> str:
    """A new random API key (about 190 bits)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    """The SHA-256 hex digest under which a key is stored and looked up."""
    return hashlib.sha256(key.encode()).hexdigest()


def keys_match(key: str, expected_hash: str) -> bool:
    """Constant-time comparison of a presented key with a stored hash."""
    return hmac.compare_digest(hash_key(key), expected_hash)


def parse_bearer(header: str | None) -> str | None:
    """The key in an ``Authorization: Bearer <key>`` header, or None."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
