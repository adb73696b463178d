"""One hit per statement: what one message became ranks once."""

from __future__ import annotations

from hippograph.restated_hits import one_per_statement
from hippograph.scoring import Candidate
from tests.support import candidate


def _hit(id_: str, kind: str | None, seq: int | None, session: str = "s1") -> tuple[Candidate, str]:
    return candidate(id_, session_id=session, seq=seq, kind=kind), id_


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
