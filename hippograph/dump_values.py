"""Graph property values as a dump's JSON data, and back: datetimes carry a tag.

JSON has no datetime, so a dump writes one as ``{"$datetime": "<ISO 8601 in
UTC>"}``. Graph properties cannot hold maps, so the tag cannot clash with
data. Everything else a property can hold (strings, numbers, booleans and
lists of them) is JSON already.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import PlainValidator

DATETIME_TAG = "$datetime"


def encode_value(value: Any) -> Any:
    """A property value as JSON data; datetimes are tagged (they must be aware)."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise TypeError("a naive datetime cannot be dumped")
        return {DATETIME_TAG: value.astimezone(UTC).isoformat()}
    if isinstance(value, list | tuple):
        return [encode_value(v) for v in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise TypeError(f"a {type(value).__name__} cannot be dumped")


def decode_time(raw: object) -> datetime:
    """The aware datetime an ISO 8601 string stands for, in UTC (``ValueError`` if none)."""
    if not isinstance(raw, str):
        raise ValueError(f"a time must be an ISO 8601 string, not {type(raw).__name__}")
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError(f"{raw!r} is not an ISO 8601 time") from None
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{raw!r} has no time zone offset")
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError):
        # 9999-12-31T23:59:59-14:00 parses, but lies past the last datetime once in UTC.
        raise ValueError(f"{raw!r} is out of range once moved to UTC") from None


def decode_value(raw: Any, *, in_list: bool = False) -> Any:
    """The property value that ``raw`` (JSON data) stands for; ``ValueError`` says why not."""
    if isinstance(raw, dict):
        if set(raw) != {DATETIME_TAG}:
            raise ValueError(f"an object value must be {{{DATETIME_TAG!r}: <ISO time>}}")
        return decode_time(raw[DATETIME_TAG])
    if isinstance(raw, list):
        if in_list:
            raise ValueError("lists of lists cannot be graph properties")
        return [decode_value(v, in_list=True) for v in raw]
    if raw is None and in_list:
        raise ValueError("a list property cannot hold null")
    return raw


Time = Annotated[datetime, PlainValidator(decode_time)]
"""A field holding an ISO 8601 string with an offset, read as a UTC datetime."""

PropertyValue = Annotated[Any, PlainValidator(decode_value)]
"""A field holding a property value as a dump writes it (see :func:`encode_value`)."""
