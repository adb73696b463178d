"""Opaque keyset cursors: the sort key and id of the last item on a page.

Keyset (not offset) pagination stays correct while items are added and costs
the same on page 1 and page 1000. Cursors are base64url JSON so clients treat
them as opaque; a cursor that does not decode is a clear input error.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from hippograph.errors import InvalidInput
from hippograph.validation import surrogate_in

_INT64 = 2**63


@dataclass(frozen=True, slots=True)
class TimeCursor:
    """Position after an item ordered by (time DESC, id DESC)."""

    at: datetime
    id: str


@dataclass(frozen=True, slots=True)
class SeqCursor:
    """Position after an item ordered by sequence number ascending."""

    seq: int


def encode_time_cursor(at: datetime, item_id: str) -> str:
    """The cursor after an item with time ``at`` and id ``item_id``."""
    return _encode({"t": at.isoformat(), "i": item_id})


def encode_id_cursor(item_id: str) -> str:
    """The cursor after the item with id ``item_id`` (lists ordered by id)."""
    return _encode({"u": item_id})


def decode_id_cursor(cursor: str | None, field: str = "after") -> str | None:
    """Parse a cursor made by :func:`encode_id_cursor`, or raise ``InvalidInput``."""
    if cursor is None:
        return None
    item_id = _decode(cursor, field).get("u")
    if not isinstance(item_id, str) or len(item_id) > 128 or surrogate_in(item_id) is not None:
        raise InvalidInput(f"{field} is not a cursor from this list", field)
    return item_id


def encode_seq_cursor(seq: int) -> str:
    """The cursor after the item with sequence number ``seq``."""
    return _encode({"s": seq})


def decode_time_cursor(cursor: str | None, field: str = "after") -> TimeCursor | None:
    """Parse a cursor made by :func:`encode_time_cursor`, or raise ``InvalidInput``."""
    if cursor is None:
        return None
    data = _decode(cursor, field)
    try:
        at = datetime.fromisoformat(str(data["t"]))
        item_id = data["i"]
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInput(f"{field} is not a cursor from this list", field) from exc
    if (
        at.tzinfo is None
        or not isinstance(item_id, str)
        or len(item_id) > 64
        or surrogate_in(item_id) is not None
    ):
        raise InvalidInput(f"{field} is not a cursor from this list", field)
    try:
        at = at.astimezone(UTC)  # a forged offset can push the time past year 9999
    except (OverflowError, ValueError) as exc:
        raise InvalidInput(f"{field} is not a cursor from this list", field) from exc
    return TimeCursor(at=at, id=item_id)


def decode_seq_cursor(cursor: str | None, field: str = "after") -> SeqCursor | None:
    """Parse a cursor made by :func:`encode_seq_cursor`, or raise ``InvalidInput``."""
    if cursor is None:
        return None
    data = _decode(cursor, field)
    seq = data.get("s") if isinstance(data, dict) else None
    # Sequence numbers are stored as 64-bit integers: a forged 2**63 would
    # overflow the graph driver, not just match nothing.
    if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq < _INT64:
        raise InvalidInput(f"{field} is not a cursor from this list", field)
    return SeqCursor(seq=seq)


def _encode(data: dict[str, object]) -> str:
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str, field: str) -> dict[str, object]:
    if len(cursor) > 512:
        raise InvalidInput(f"{field} is not a cursor from this list", field)
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{field} is not a cursor from this list", field) from exc
    if not isinstance(data, dict):
        raise InvalidInput(f"{field} is not a cursor from this list", field)
    return data
