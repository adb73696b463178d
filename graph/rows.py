"""Typed rows: a named tuple read from one positional row of a ``collect([...])`` list.

Queries that return many small rows return them as ONE record holding a list
of lists, with datetimes as text (graph/candidate_rows.py says why: the
driver's per-record and per-temporal decoding cost the event loop most of
the time). ``RowCodec`` keeps that wire shape and gives it a type: the
row's Cypher list items are derived from a ``NamedTuple``'s fields, in
order, as ``RecordCodec`` (graph/codec.py) derives a record's projection,
so a column is named once, where it is declared, and no reader counts
positions. A field of type ``AsText`` is sent as ``toString(...)`` (a
datetime, as the server writes it: ``graph.records.parse_utc`` reads it).

The row holds the values as they came, made in one step
(``NamedTuple._make``): a few hundred rows per query are read on the event
loop, and converting each column there cost twice the old positional
reading; the row's user converts what it reads.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Annotated, Any, Generic, TypeVar, Union, get_args, get_origin, get_type_hints

R = TypeVar("R", bound=tuple[Any, ...])


class _Text:
    """The marker of a column sent as text."""


AS_TEXT = _Text()
AsText = Annotated[str, AS_TEXT]
"""A column sent as Cypher's ``toString`` of the property (a datetime, as its server writes it)."""


def _as_text(hint: Any) -> bool:
    """Whether a field of type ``hint`` (``AsText`` or ``AsText | None``) is sent as text."""
    if get_origin(hint) in (Union, types.UnionType):
        return any(_as_text(arg) for arg in get_args(hint))
    return get_origin(hint) is Annotated and AS_TEXT in hint.__metadata__


class RowCodec(Generic[R]):
    """One kind of row (a ``NamedTuple``): its Cypher list items for ``variable``, its reading."""

    def __init__(self, record: type[R], variable: str) -> None:
        hints = get_type_hints(record, include_extras=True)
        names: tuple[str, ...] = record._fields  # type: ignore[attr-defined]
        self._make = record._make  # type: ignore[attr-defined]
        self.width = len(names)
        """How many leading items of a row are the record's."""
        self.items = ", ".join(
            f"toString({variable}.{name})" if _as_text(hints[name]) else f"{variable}.{name}"
            for name in names
        )
        """The record's items of a Cypher list, in field order (``m.id, m.importance, …``)."""

    def read(self, row: Sequence[Any]) -> R:
        """The record from a row's leading ``width`` items (what follows is the caller's);
        a row with fewer is a ``TypeError``."""
        found: R = self._make(row[: self.width])
        return found
