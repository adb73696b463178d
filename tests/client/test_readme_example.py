"""The Python examples of the README and the client's guide run as written, against the real server."""

from __future__ import annotations

import asyncio
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hippograph_client import HippoGraph

from tests.client.conftest import LiveServer

pytestmark = pytest.mark.only_on("arcadedb", "the client tests the API surface, not Cypher")

README = Path(__file__).resolve().parents[2] / "README.md"
GUIDE = README.parent / "docs" / "client.md"
DISTRIBUTION_README = README.parent / "client" / "README.md"
# The address the examples name; the tests put their own server's in its place.
EXAMPLE_URL = '"http://127.0.0.1:8000"'


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


def first_example(document: Path) -> str:
    """The one Python block before a document's first ``##`` heading."""
    text = document.read_text(encoding="utf-8").split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(blocks) == 1
    assert EXAMPLE_URL in blocks[0]
    return str(blocks[0]).replace(EXAMPLE_URL, "URL")


def test_the_distributions_readme_example_runs_as_written(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The long description an index shows: its user is one no other test
    # makes, and it names all it uses (a reader there has no README around it).
    code = compile(first_example(DISTRIBUTION_README), "client/README.md", "exec")
    monkeypatch.setenv("HIPPOGRAPH_KEY", live.admin_key)
    exec(code, {"URL": live.url})
    assert "Lisbon" in capsys.readouterr().out


def test_the_guides_async_example_runs_as_written(
    live: LiveServer, admin: HippoGraph, capsys: pytest.CaptureFixture[str]
) -> None:
    # The guide's names: a key, a session of alice's, and a bob who does not exist.
    admin.create_user("alice", "Alice")
    session_id = admin.create_session("alice").id
    # `async with` at the top level, as the guide shows it, runs inside a coroutine.
    body = textwrap.indent(first_example(GUIDE), "    ")
    code = compile(f"async def example(URL, key, session_id):\n{body}", "docs/client.md", "exec")
    scope: dict[str, Any] = {}
    exec(code, scope)
    asyncio.run(scope["example"](live.url, live.admin_key, session_id))
    code_printed, message = capsys.readouterr().out.split(" ", 1)
    assert (code_printed, "bob" in message) == ("NOT_FOUND", True)
    found = admin.search("alice", "Lisbon", top_k=5).hits
    assert any(hit.memory and "Lisbon" in hit.memory.content for hit in found)
