"""The README's Python example runs as pasted, against the real server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.client.conftest import LiveServer

pytestmark = pytest.mark.only_on("arcadedb", "the client tests the API surface, not Cypher")

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    """The Python block of the quick start's agent example (its own ``###`` part)."""
    text = README.read_text(encoding="utf-8")
    section = text.split("### An agent's memory in ten lines", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 1
    return str(blocks[0])


def test_the_readme_example_remembers_and_recalls(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = compile(readme_example(), "README.md", "exec")
    assert len([line for line in readme_example().splitlines() if line.strip()]) <= 10
    monkeypatch.setenv("HIPPOGRAPH_URL", live.url)
    monkeypatch.setenv("HIPPOGRAPH_KEY", live.admin_key)
    # Twice: the second run finds its user instead of creating it.
    for _ in range(2):
        exec(code, {})
        printed = capsys.readouterr().out
        assert "Lisbon" in printed.splitlines()[0]
