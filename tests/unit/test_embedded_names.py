"""A database name reaches the embedded server's commands and its folders only once checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.embedded import EmbeddedArcadeDB
from hippograph.errors import ConfigError


@pytest.mark.parametrize(
    ("source", "target"),
    [("template", "../outside"), ("../template", "copy"), ("template", "a b"), ("", "copy")],
)
def test_a_clone_with_a_bad_name_is_refused_before_any_file_is_copied(
    tmp_path: Path, source: str, target: str
) -> None:
    databases = tmp_path / "arcadedb" / "databases"
    (databases / "template").mkdir(parents=True)
    (databases / "template" / "schema.json").write_text("{}")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    # Never started: a refusal must come before the server is asked anything.
    with pytest.raises(ConfigError, match="must be letters, digits and _"):
        EmbeddedArcadeDB(tmp_path).clone_database(source, target)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
