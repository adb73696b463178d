"""Mapping between graph properties and domain records.

Reads never fetch embeddings: the projections below list what a record needs,
and ``search_text``/``embedding`` are not among them. ArcadeDB returns
datetimes without a zone (they are UTC); Neo4j returns them with one; both
come out of here as aware UTC datetimes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from neo4j import Record

from graph.codec import Props as Props
from graph.codec import RecordCodec
from graph.codec import to_utc as to_utc
from hippograph.models import Memory, MemUnit, Message, Page, Session, User

T = TypeVar("T")

USERS = RecordCodec(User)
SESSIONS = RecordCodec(Session)
MESSAGES = RecordCodec(Message)
MEMUNITS = RecordCodec(MemUnit)
# Level changes are appended by forgetting's own statements (graph/forgetting.py).
MEMORIES = RecordCodec(Memory, written_elsewhere=("level_history",))

USER_MAP = USERS.projection
SESSION_MAP = SESSIONS.projection
MESSAGE_MAP = MESSAGES.projection
MEMUNIT_MAP = MEMUNITS.projection
MEMORY_MAP = MEMORIES.projection


def parse_utc(text: str) -> datetime:
    """A datetime as the server's Cypher ``toString`` writes it, as an aware UTC datetime.

    ArcadeDB writes no zone (the value is UTC); Neo4j writes an offset and,
    for a named zone, the name in brackets after it, which the offset makes
    redundant. Digits past the microsecond are dropped.
    """
    return to_utc(datetime.fromisoformat(text.partition("[")[0]))


def to_utc_or_none(value: Any) -> datetime | None:
    """Like :func:`to_utc`, passing None through."""
    return None if value is None else to_utc(value)


user_from = USERS.read
session_from = SESSIONS.read
message_from = MESSAGES.read
memunit_from = MEMUNITS.read
memory_from = MEMORIES.read
memory_props = MEMORIES.props
message_props = MESSAGES.props
memunit_props = MEMUNITS.props


def node_from(labels: list[str], p: Props) -> Memory | MemUnit | Message:
    """A provenance node from its labels and properties."""
    if "Memory" in labels:
        return memory_from(p)
    if "MemUnit" in labels:
        return memunit_from(p)
    if "Message" in labels:
        return message_from(p)
    raise ValueError(f"not a provenance node: {labels}")


def grouped(
    rows: Iterable[Record], keys: Iterable[str], column: str, read: Callable[[Record], T]
) -> dict[str, list[T]]:
    """``read`` of each row, listed under the row's ``column``; each of ``keys`` has
    a list, empty where no row names it."""
    found: dict[str, list[T]] = {key: [] for key in keys}
    for row in rows:
        found[row[column]].append(read(row))
    return found


def page(items: Sequence[T], first: int, cursor: Callable[[T], str]) -> Page[T]:
    """The first ``first`` of ``items`` (read one more than that, to tell whether
    a next page exists), ending at the ``cursor`` of the last one shown."""
    shown = tuple(items[:first])
    end = cursor(shown[-1]) if shown else None
    return Page(items=shown, has_next=len(items) > first, end_cursor=end)


class Vector(list[float]):
    """A vector parameter: a plain list to the driver, a short text in its debug log.

    The neo4j driver formats every query's parameters for its debug log before
    it looks at the log level. For a page of 1,000 vectors that ``repr`` took
    200 ms of the event loop's thread, more than packing and sending them
    (measured 2026-11-23); this class packs exactly as a list does.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"


def vector_param(vector: Sequence[float]) -> Vector:
    """``vector`` as a query parameter (see ``Vector``)."""
    return Vector(vector)


def float32(vector: Any) -> Vector:
    """``vector`` rounded to float32, as ArcadeDB stores it, so both servers agree."""
    import numpy as np

    return Vector(np.asarray(vector, dtype=np.float32).tolist())
