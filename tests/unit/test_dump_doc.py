"""docs/dump.md names every label a dump holds, in dump order, and every edge with its ends."""

from __future__ import annotations

import re

from hippograph.dump import EDGE_KINDS, NODE_LABELS
from tests.documents import section


def _bullet(title: str) -> str:
    """The text of the Format section's bullet that starts with ``**title**``."""
    text = section("docs/dump.md", "Format")
    return " ".join(text.split(f"* **{title}**", 1)[1].split("\n* ", 1)[0].split())


def test_the_nodes_are_the_labels_a_dump_holds_in_its_order() -> None:
    listed = _bullet("Nodes").split(" — ")[1]  # "next, label by label — `User`, … — each…"
    assert tuple(re.findall(r"`(\w+)`", listed)) == NODE_LABELS


def test_the_edges_are_every_edge_with_its_ends() -> None:
    written = set()
    # "`A` and `B` (X→Y, Z→W…)": each type named before the brackets, with each pair in them.
    for names, ends in re.findall(r"((?:`[A-Z_]+`(?: and |, )?)+)\s*\(([^)]*)\)", _bullet("Edges")):
        pairs = re.findall(r"(\w+)→(\w+)", ends)
        written |= {(kind, a, b) for kind in re.findall(r"`([A-Z_]+)`", names) for a, b in pairs}
    assert written == {(kind.value, start, end) for kind, start, end in EDGE_KINDS}
