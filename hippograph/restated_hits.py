"""Search returns k different things: one hit per statement.

One message can become an event, a fact and a profile attribute, each a
memory of its own; for a question about it all three rank together and
spend three of the k slots on one sentence (20% of HYBRID's top-5 slots on
the dev questions repeated another hit). Statements (events, facts,
profile attributes) that come from the same message are one hit: the best
ranked stands, and the others stay reachable from it through provenance,
as they share its source. Summaries (episodes, reflections) start at the
first message of a whole unit and are never collapsed by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from hippograph.scoring import SUMMARY_KINDS, Candidate

T = TypeVar("T")


def one_per_statement(ranked: Sequence[tuple[Candidate, T]]) -> list[tuple[Candidate, T]]:
    """``ranked`` (best first) without a hit whose source message a better hit has."""
    seen: set[tuple[str, int]] = set()
    kept: list[tuple[Candidate, T]] = []
    for hit in ranked:
        candidate = hit[0]
        if (
            candidate.kind is not None
            and candidate.kind not in SUMMARY_KINDS
            and candidate.session_id is not None
            and candidate.seq is not None
        ):
            source = (candidate.session_id, candidate.seq)
            if source in seen:
                continue
            seen.add(source)
        kept.append(hit)
    return kept
