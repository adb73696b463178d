"""The committed schema.graphql is the schema the code serves."""

from __future__ import annotations

from pathlib import Path

from hippograph.cli import main
from hippograph.settings import LimitSettings
from schema.build import build_schema

ROOT = Path(__file__).resolve().parents[2]


def test_committed_sdl_matches_the_code() -> None:
    committed = (ROOT / "schema.graphql").read_text()
    assert committed == build_schema(LimitSettings()).as_str() + "\n", (
        "schema.graphql is stale: run `hippograph export-schema`"
    )


def test_export_schema_writes_the_sdl(tmp_path: Path) -> None:
    target = tmp_path / "out.graphql"
    assert main(["export-schema", "--output", str(target)]) == 0
    assert target.read_text() == (ROOT / "schema.graphql").read_text()
