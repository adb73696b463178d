"""A benchmark without the dev conversations says where they go (they are not in the repository)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.common import dev_file, locomo_samples


def test_a_missing_dev_file_stops_with_where_the_files_go(tmp_path: Path) -> None:
    missing = tmp_path / "locomo" / "locomo_dev.json"
    with pytest.raises(SystemExit) as stop:
        locomo_samples(missing)
    message = str(stop.value.code)
    assert message.startswith(f"no file {missing}: the dev conversations are not part of")
    assert "HIPPOGRAPH_DEV_DATA" in message
    assert "bench/README.md" in message


def test_a_present_dev_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    path.write_text('[{"sample_id": "s"}]')
    assert dev_file(path) == path
    assert locomo_samples(path) == [{"sample_id": "s"}]
