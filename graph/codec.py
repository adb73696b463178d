"""Domain records to graph properties and back, derived from the dataclass fields.

A record's projection (the ``{.id, .name, …}`` map a query returns), its
properties for a write and its reading from a result are all read off the
record's own fields and their annotations, so a new field on ``Memory`` is
stored and read with no change here: only the value kinds below need rules.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Generic, TypeVar, Union, get_args, get_origin, get_type_hints

R = TypeVar("R")
Props = Mapping[str, Any]
Reader = Callable[[Any], Any]

_MISSING = dataclasses.MISSING


def to_utc(value: Any) -> datetime:
    """A driver temporal value (or Python datetime) as an aware UTC datetime."""
    native = value.to_native() if hasattr(value, "to_native") else value
    if not isinstance(native, datetime):
        raise TypeError(f"expected a datetime, got {type(value).__name__}")
    if native.tzinfo is None:
        return native.replace(tzinfo=UTC)
    return native.astimezone(UTC)


def _reader(hint: Any) -> tuple[Reader, bool]:
    """How to read a stored value of type ``hint``, and whether None is a value of it."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(hint) if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"no storage rule for {hint!r}")
        return _reader(inner[0])[0], True
    if origin is tuple:
        item = get_args(hint)[0]
        decode = getattr(item, "decode", None)  # a value object stored as text (LevelChange)
        if decode is not None:
            return lambda v: tuple(decode(x) for x in v), False
        return tuple, False
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint, False
    if hint is datetime:
        return to_utc, False
    if hint in (str, int, float, bool):
        return hint, False
    raise TypeError(f"no storage rule for {hint!r}")


def _written(value: Any) -> Any:
    """A field's value as a graph property."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    name: str
    read: Reader
    optional: bool
    default: Any  # dataclasses.MISSING when the field has none


class RecordCodec(Generic[R]):
    """Reads and writes one kind of domain record (a frozen dataclass) as graph properties."""

    def __init__(self, record: type[R], *, written_elsewhere: Collection[str] = ()) -> None:
        """``written_elsewhere``: fields read back but stored by their own statements."""
        hints = get_type_hints(record)
        self._record = record
        self._fields: list[_Field] = []
        for field in dataclasses.fields(record):  # type: ignore[arg-type]
            read, optional = _reader(hints[field.name])
            default = field.default
            if field.default_factory is not _MISSING:
                default = field.default_factory()
            self._fields.append(_Field(field.name, read, optional, default))
        self._written_elsewhere = frozenset(written_elsewhere)
        self.projection = "{" + ", ".join(f".{f.name}" for f in self._fields) + "}"

    def read(self, props: Props) -> R:
        """The record from a projection; a missing or null value takes the field's default."""
        values: dict[str, Any] = {}
        for field in self._fields:
            raw = props.get(field.name)
            if raw is None:
                if field.default is not _MISSING:
                    values[field.name] = field.default
                elif field.optional:
                    values[field.name] = None
                else:
                    raise KeyError(f"{self._record.__name__}.{field.name} is missing")
            else:
                values[field.name] = field.read(raw)
        return self._record(**values)

    def props(self, record: R) -> dict[str, Any]:
        """The graph properties of ``record`` (enums by value, tuples as lists)."""
        return {
            field.name: _written(getattr(record, field.name))
            for field in self._fields
            if field.name not in self._written_elsewhere
        }
