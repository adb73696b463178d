"""One hit per statement: what one message became ranks once."""

from __future__ import annotations

from datetime import UTC, datetime

from hippograph.restated_hits import one_per_statement
from hippograph.scoring import Candidate

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _hit(id_: str, kind: str | None, seq: int | None, session: str = "s1") -> tuple[Candidate, str]:
    candidate = Candidate(
        id=id_,
        importance=0.5,
        created_at=T0,
        last_accessed_at=T0,
        session_id=session,
        seq=seq,
        kind=kind,
    )
    return candidate, id_


def test_statements_of_one_message_are_one_hit_the_best_ranked() -> None:
    ranked = [
        _hit("fact", "semantic", 3),
        _hit("episode", "episodic", 3),  # a summary: it starts at message 3, restates nothing
        _hit("event", "event", 3),
        _hit("other-session", "event", 3, session="s2"),
        _hit("profile", "profile", 3),
        _hit("next", "event", 4),
        _hit("unit", None, 3),  # a MemUnit
        _hit("reflection", "reflection", None),
    ]
    assert [label for _, label in one_per_statement(ranked)] == [
        "fact",
        "episode",
        "other-session",
        "next",
        "unit",
        "reflection",
    ]
