"""The admin key written at first start is readable by its owner only."""

from __future__ import annotations

import stat
from pathlib import Path

from hippograph.runtime import _write_secret


def test_a_key_written_over_a_readable_file_is_the_owners_alone(tmp_path: Path) -> None:
    path = tmp_path / "data" / "admin.key"
    path.parent.mkdir()
    path.write_text("left from before\n")
    path.chmod(0o644)
    _write_secret(path, "hg_new")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == "hg_new\n"
