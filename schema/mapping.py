"""GraphQL objects made from domain records field by field.

Where a GraphQL type is one-to-one with a domain record (``User``, ``Message``,
``Memory``…), its data fields are copied from the record's attributes of the
same names, so a field added to both needs no mapping code. Ids need no
conversion (``strawberry.ID`` is ``str``), domain enums are the GraphQL enums,
and tuples serialize as lists.
"""

from __future__ import annotations

from typing import Any, TypeVar

S = TypeVar("S")


_FIELDS: dict[type, tuple[str, ...]] = {}


def _data_fields(cls: type) -> tuple[str, ...]:
    """The fields of a strawberry type that hold data (not resolvers), read once per type."""
    names = _FIELDS.get(cls)
    if names is None:
        definition = getattr(cls, "__strawberry_definition__")  # noqa: B009 - untyped attribute
        names = tuple(f.python_name for f in definition.fields if f.base_resolver is None)
        _FIELDS[cls] = names
    return names


def from_domain(cls: type[S], record: object, **given: Any) -> S:
    """An instance of ``cls`` with each data field taken from ``record`` (``given`` wins)."""
    values = {name: getattr(record, name) for name in _data_fields(cls) if name not in given}
    return cls(**values, **given)
