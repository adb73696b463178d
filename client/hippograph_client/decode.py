"""Reading the API's JSON into the client's frozen dataclasses, by their field types,
and writing them back as JSON.

Each result type declares its fields once, snake_case, typed; the JSON key
is the camelCase of the field name. One reader walks the type hints, so a
field added to a type is its declaration and its place in the operation's
selection, nothing more. A type with a ``from_json`` classmethod reads
itself (a node whose text lives under a different field per type).
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Mapping
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar, Union, cast, get_args, get_origin, get_type_hints

from hippograph_client.errors import ServerError

T = TypeVar("T")


def camel(name: str) -> str:
    """``time_match`` → ``timeMatch``."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@functools.cache
def _hints(cls: Any) -> dict[str, Any]:
    return get_type_hints(cls)


def decode(cls: type[T], data: Mapping[str, Any]) -> T:
    """``cls`` from its JSON object; a key the answer lacks is a ``ServerError``."""
    reader = getattr(cls, "from_json", None)
    if reader is not None:
        return cast(T, reader(data))
    hints = _hints(cast(Any, cls))
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cast(Any, cls)):
        key = camel(field.name)
        if key not in data:
            if field.default is not dataclasses.MISSING:
                continue
            raise ServerError("UNEXPECTED_ANSWER", f"the answer has no {cls.__name__}.{key}")
        values[field.name] = value_of(hints[field.name], data[key])
    return cls(**values)


def value_of(hint: Any, raw: Any) -> Any:
    """``raw`` read as the type ``hint``."""
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        if raw is None:
            return None
        present = [arg for arg in get_args(hint) if arg is not type(None)]
        return value_of(present[0], raw)
    if origin is tuple:
        item = get_args(hint)[0]
        return tuple(value_of(item, one) for one in raw)
    if hint is datetime:
        return datetime.fromisoformat(raw)
    if hint is float:
        return float(raw)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(raw)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return decode(hint, raw)
    return raw


def encode(value: Any) -> Any:
    """A client value as JSON: camelCase keys, enums by value, times in ISO 8601.

    ``decode``'s inverse for the types that read a plain object (a page
    reads a connection but writes its own fields: ``memories``,
    ``hasNextPage``, ``endCursor``). Unlike a request's variables, a value
    that is None stays: an answer says what it does not know.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {camel(f.name): encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple | list):
        return [encode(item) for item in value]
    if isinstance(value, Mapping):
        return {key: encode(item) for key, item in value.items()}
    return value
