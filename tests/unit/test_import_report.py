"""What `hippograph import` and `export` print: counts in words, one of a thing singular."""

from __future__ import annotations

from hippograph.dump_report import DumpReport
from hippograph.importers.ingest import ImportReport
from hippograph.plural import counted


def test_one_of_a_thing_is_singular_and_every_other_count_plural() -> None:
    assert [counted(n, "message") for n in (0, 1, 2)] == ["0 messages", "1 message", "2 messages"]
    assert counted(1, "memory", "memories") == "1 memory"
    assert counted(3, "memory", "memories") == "3 memories"


def test_the_summary_and_listing_count_in_words() -> None:
    report = ImportReport(
        conversations=1, users_created=1, sessions_created=1, messages_new=1, memunits=1, memories=1
    )
    report.made.append(("ann", "Ann", "ses_1", "a chat", 1))
    assert report.summary(2.0) == (
        "1 conversation, 1 session (1 new), 1 new user\n"
        "1 message (1 new, 0 existing), 1 memunit, 1 memory in 2.0 s (0.5 messages/s)"
    )
    assert report.listing() == "user ann (Ann)\n  session ses_1  a chat  1 message"
    report.messages_existing = 11
    assert "12 messages (1 new, 11 existing)" in report.summary(2.0)


def test_a_dumps_import_counts_in_words() -> None:
    report = DumpReport(nodes_created=1, nodes_existing=2, edges_created=0, edges_existing=1)
    assert report.summary(1.0) == (
        "1 node created (2 existed), 0 edges created (1 existed) in 1.0 s (4 lines/s)"
    )
