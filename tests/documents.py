"""The project's documents as tests read them: a section under its heading."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def section(document: str, heading: str) -> str:
    """The text under ``## heading`` of a document (a path from the repository's root),
    up to the next ``##`` heading."""
    text = (ROOT / document).read_text(encoding="utf-8")
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
