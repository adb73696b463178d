"""A search candidate as the graph returns it (one typed row of a list), and as ranking reads it.

Shared by search's candidate queries (graph/search.py) and the entity walk
(graph/entities.py), which return the same memory row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from graph.records import parse_utc
from graph.rows import AsText, RowCodec
from hippograph.scoring import Candidate

# Candidates carry only what ranking reads; the few hits that make the cut are
# fetched whole afterwards (reading a hundred full memories per query through
# the driver costs more than the second round trip). They come back as ONE
# record holding a list of rows, with datetimes as text: the driver decodes
# each record and each temporal value in Python on the event loop, and for
# 200 index neighbours that took 9 ms of the loop's time as 200 records of
# maps with datetimes, 1.3 ms as one list of lists with strings (measured at
# 100k memories, 2026-11-24) — on two cores that time is taken from the
# graph server and the model, which run beside it.


class MemoryRow(NamedTuple):
    """What ranking reads of a memory, as sent (a candidate's row is this, then its score)."""

    id: str
    importance: float
    created_at: AsText
    last_accessed_at: AsText
    session_id: str | None
    seq: int | None
    about_start: AsText | None
    about_end: AsText | None
    kind: str | None

    def candidate(
        self, similarity: float | None = None, keyword_score: float | None = None
    ) -> Candidate:
        """The ranking candidate this row describes."""
        start, end = self.about_start, self.about_end
        return Candidate(
            id=self.id,
            importance=float(self.importance),  # a server may send 1 for 1.0
            created_at=parse_utc(self.created_at),
            last_accessed_at=parse_utc(self.last_accessed_at),
            session_id=self.session_id,
            seq=self.seq,
            about=(parse_utc(start), parse_utc(end)) if start and end else None,
            kind=self.kind,
            similarity=similarity,
            keyword_score=keyword_score,
        )


class UnitRow(NamedTuple):
    """What ranking reads of a MemUnit, as sent (importance 0.5, last accessed when it
    happened)."""

    id: str
    ts: AsText
    session_id: str | None

    def candidate(
        self, similarity: float | None = None, keyword_score: float | None = None
    ) -> Candidate:
        """The ranking candidate this row describes."""
        at = parse_utc(self.ts)
        return Candidate(
            id=self.id,
            importance=0.5,
            created_at=at,
            last_accessed_at=at,
            session_id=self.session_id,
            similarity=similarity,
            keyword_score=keyword_score,
        )


MEMORY_ROW = RowCodec(MemoryRow, "m")
UNIT_ROW = RowCodec(UnitRow, "n")
# Each candidate row is the record's items, then the query's score.
CANDIDATES_M = f"collect([{MEMORY_ROW.items}, score]) AS rows"
CANDIDATES_N = f"collect([{UNIT_ROW.items}, score]) AS rows"


def candidate(
    row: Sequence[Any], unit: bool, similarity: float | None, keyword_score: float | None = None
) -> Candidate:
    """A ranking candidate from a candidate row of a memory or (``unit``) a MemUnit."""
    codec: RowCodec[MemoryRow] | RowCodec[UnitRow] = UNIT_ROW if unit else MEMORY_ROW
    return codec.read(row).candidate(similarity, keyword_score)
