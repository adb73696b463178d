"""Identifiers: generated ids carry their node label as a prefix.

Generated ids are ``<prefix>_<26 Crockford base32 chars>``: 48 bits of
milliseconds then 80 random bits, so they sort by creation time. Content-derived
ids (a message replayed with the same client id) use a hash in the same shape,
so an id always tells which label to look under without a label-less scan.
User ids are chosen by clients (their own user ids) and only have to be tame.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime
from enum import StrEnum

from hippograph.errors import InvalidInput

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class IdKind(StrEnum):
    """The labels whose ids are generated, by prefix."""

    SESSION = "ses"
    MESSAGE = "msg"
    MEMUNIT = "mu"
    MEMORY = "mem"
    API_KEY = "key"
    JOB = "job"
    ENTITY = "ent"


_GENERATED = re.compile(r"^(ses|msg|mu|mem|key|job|ent)_[0-9A-HJKMNP-TV-Z]{26}$")
_USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$")
_CLIENT_ID = re.compile(r"^[\x21-\x7e]{1,128}$")


def _base32(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def new_id(kind: IdKind, now: datetime) -> str:
    """A fresh, time-sortable id for ``kind``."""
    millis = int(now.timestamp() * 1000) & ((1 << 48) - 1)
    value = (millis << 80) | secrets.randbits(80)
    return f"{kind.value}_{_base32(value, 26)}"


def derived_id(kind: IdKind, *parts: str) -> str:
    """A deterministic id for ``kind`` from ``parts`` (idempotent replays)."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return f"{kind.value}_{_base32(int.from_bytes(digest[:17], 'big') >> 6, 26)}"


def kind_of(node_id: str) -> IdKind | None:
    """The kind a generated id belongs to, or None for anything else."""
    if not _GENERATED.fullmatch(node_id):
        return None
    return IdKind(node_id.split("_", 1)[0])


def require_id(node_id: str, kind: IdKind, field: str) -> str:
    """Return ``node_id`` if it is a well-formed id of ``kind``, else raise."""
    if kind_of(node_id) is not kind:
        raise InvalidInput(
            f"{field} must be a {kind.name.lower()} id like '{kind.value}_01J...' "
            f"(got {_shorten(node_id)!r})",
            field,
        )
    return node_id


def require_user_id(user_id: str, field: str = "userId") -> str:
    """Return ``user_id`` if it is 1–128 tame characters, else raise."""
    if not _USER_ID.fullmatch(user_id):
        raise InvalidInput(
            f"{field} must be 1-128 characters of letters, digits and _.:@- "
            f"starting with a letter or digit (got {_shorten(user_id)!r})",
            field,
        )
    return user_id


def require_client_id(client_id: str, field: str) -> str:
    """Return a client-chosen message id if it is 1–128 printable ASCII characters."""
    if not _CLIENT_ID.fullmatch(client_id):
        raise InvalidInput(
            f"{field} must be 1-128 printable ASCII characters without spaces "
            f"(got {_shorten(client_id)!r})",
            field,
        )
    return client_id


def _shorten(value: str, limit: int = 40) -> str:
    return value if len(value) <= limit else value[:limit] + "…"
