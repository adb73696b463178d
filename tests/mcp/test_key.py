"""What ``hippograph mcp`` acts as, and the guard that keeps stdout for the protocol."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hippograph.mcp.key import KEY_ENV, StartRefused, read_key
from hippograph.mcp.stdio import stdout_to_stderr


def test_the_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "  hg_from-env\n")
    assert read_key(None) == "hg_from-env"


def test_a_key_file_wins_over_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(KEY_ENV, "hg_from-env")
    key_file = tmp_path / "mcp.key"
    key_file.write_text("hg_from-file\n")
    assert read_key(key_file) == "hg_from-file"


@pytest.mark.parametrize("value", [None, "", "   "])
def test_no_key_refuses_to_start_and_says_how_to_give_one(
    monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    if value is None:
        monkeypatch.delenv(KEY_ENV, raising=False)
    else:
        monkeypatch.setenv(KEY_ENV, value)
    with pytest.raises(StartRefused, match="set HIPPOGRAPH_API_KEY"):
        read_key(None)


def test_writes_to_stdout_go_to_stderr_inside_the_guard_only(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # File descriptor 1 itself, as the JVM writes (and, outside pytest's
    # capture, Python's own sys.stdout).
    with stdout_to_stderr():
        os.write(1, b"during\n")
    os.write(1, b"after\n")

    captured = capfd.readouterr()
    assert captured.out == "after\n"
    assert captured.err == "during\n"
