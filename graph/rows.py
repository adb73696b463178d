"""Typed rows: a record read from one positional row of a ``collect([...])`` list.

Queries that return many small rows return them as ONE record holding a list
of lists, with datetimes as text (graph/candidate_rows.py says why: the
driver's per-record and per-temporal decoding cost the event loop most of
the time). ``RowCodec`` keeps that wire shape and gives it a type: the
row's Cypher list items and their reading are both derived from a frozen
dataclass's fields, in order, as ``RecordCodec`` (graph/codec.py) derives
a record's projection, so a column is named once, where it is declared,
and no reader counts positions.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar, Union, get_args, get_origin, get_type_hints

from graph.records import parse_utc

R = TypeVar("R")


def _column(hint: Any) -> tuple[Callable[[Any], Any], bool]:
    """How to read a column of type ``hint``, and whether it is sent as text (a datetime)."""
    if get_origin(hint) in (Union, types.UnionType):
        [inner] = [a for a in get_args(hint) if a is not type(None)]
        read, as_text = _column(inner)
        return (lambda v: None if v is None else read(v)), as_text
    if hint is datetime:
        return parse_utc, True
    if hint in (str, int, float, bool):
        return hint, False
    raise TypeError(f"no row rule for {hint!r}")


class RowCodec(Generic[R]):
    """One kind of row: its Cypher list items for ``variable``, and its reading."""

    def __init__(self, record: type[R], variable: str) -> None:
        hints = get_type_hints(record)
        names = [f.name for f in dataclasses.fields(record)]  # type: ignore[arg-type]
        columns = [_column(hints[name]) for name in names]
        self._record = record
        self._names = names
        self._readers = [read for read, _ in columns]
        self.width = len(names)
        """How many leading items of a row are the record's."""
        self.items = ", ".join(
            f"toString({variable}.{name})" if as_text else f"{variable}.{name}"
            for name, (_, as_text) in zip(names, columns, strict=True)
        )
        """The record's items of a Cypher list, in field order (``m.id, m.importance, …``)."""

    def read(self, row: Sequence[Any]) -> R:
        """The record from a row's leading ``width`` items (what follows is the caller's)."""
        values = {
            name: read(raw)
            for name, read, raw in zip(self._names, self._readers, row[: self.width], strict=True)
        }
        return self._record(**values)
