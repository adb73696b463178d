"""The write counters: one spelling, and only the counters a dump leaves out."""

from __future__ import annotations

import pytest

from graph.cypher import counted, provenance_write


def test_a_counter_is_a_real_change_of_its_node() -> None:
    assert counted("u", "session_writes") == (
        "SET u.session_writes = coalesce(u.session_writes, 0) + 1 "
    )
    assert provenance_write("x") == counted("x", "provenance_writes")


def test_a_counter_a_dump_would_carry_is_refused() -> None:
    with pytest.raises(ValueError, match="write counters"):
        counted("u", "visits")
