"""A search candidate as the graph returns it (one row of a list), and as ranking reads it.

Shared by search's candidate queries (graph/search.py) and the entity walk
(graph/entities.py), which return the same memory row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.records import parse_utc
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
# Memory row: id, importance, created_at, last_accessed_at, session_id, seq,
# about_start, about_end, kind (what ranking reads of a memory; the entity
# walk returns the same row), then score.
MEMORY_ROW = (
    "m.id, m.importance, toString(m.created_at), toString(m.last_accessed_at),"
    " m.session_id, m.seq, toString(m.about_start), toString(m.about_end), m.kind"
)
_FIELDS_M = MEMORY_ROW + ", score"
# MemUnit row: id, ts, session_id, score.
_FIELDS_N = "n.id, toString(n.ts), n.session_id, score"
CANDIDATES_M = "collect([" + _FIELDS_M + "]) AS rows"
CANDIDATES_N = "collect([" + _FIELDS_N + "]) AS rows"


def candidate(
    row: Sequence[Any], unit: bool, similarity: float | None, keyword_score: float | None = None
) -> Candidate:
    """A ranking candidate from a candidate row (MemUnits: importance 0.5)."""
    if unit:
        at = parse_utc(row[1])
        return Candidate(
            id=row[0],
            importance=0.5,
            created_at=at,
            last_accessed_at=at,
            session_id=row[2],
            similarity=similarity,
            keyword_score=keyword_score,
        )
    return memory_candidate(row, similarity, keyword_score)


def memory_candidate(
    row: Sequence[Any], similarity: float | None = None, keyword_score: float | None = None
) -> Candidate:
    """A ranking candidate from a ``MEMORY_ROW`` (anything after it is ignored)."""
    return Candidate(
        id=row[0],
        importance=float(row[1]),
        created_at=parse_utc(row[2]),
        last_accessed_at=parse_utc(row[3]),
        session_id=row[4],
        seq=row[5],
        about=(parse_utc(row[6]), parse_utc(row[7])) if row[6] and row[7] else None,
        kind=row[8],
        similarity=similarity,
        keyword_score=keyword_score,
    )
