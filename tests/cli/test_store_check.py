"""A command on a store that is not there, not a directory, or in use fails at once, in one line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hippograph.cli import main


@pytest.fixture
def embedded_at(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The default embedded store, its data directory under ``tmp_path`` (not made)."""
    for name in list(os.environ):
        if name.startswith("HIPPOGRAPH_") and name != "HIPPOGRAPH_EMBEDDING__CACHE_DIR":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    data_dir = tmp_path / "dtaa"  # a typo of "data"
    monkeypatch.setenv("HIPPOGRAPH_GRAPH__DATA_DIR", str(data_dir))
    return data_dir


@pytest.mark.parametrize(
    "command",
    [["keys", "list"], ["export", "-"], ["reindex"], ["mcp"]],
)
def test_a_missing_store_is_refused_naming_the_setting(
    embedded_at: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(command) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        f"hippograph: there is no HippoGraph store in {embedded_at.resolve()} "
        "(HIPPOGRAPH_GRAPH__DATA_DIR): set it to your store's directory, or make one there "
        "with `hippograph serve` or `hippograph init`"
    )
    assert not embedded_at.exists()  # nothing was made


def test_a_database_name_the_store_does_not_hold_is_refused_naming_the_ones_it_does(
    embedded_at: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The store's files as a first `hippograph serve` leaves them (no JVM needed).
    (embedded_at / "arcadedb" / "databases" / "hippograph").mkdir(parents=True)
    monkeypatch.setenv("HIPPOGRAPH_GRAPH__DATABASE", "hipograph")
    assert main(["keys", "list"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"hippograph: the store in {embedded_at.resolve()} has no database 'hipograph' "
        "(HIPPOGRAPH_GRAPH__DATABASE); it has 'hippograph'"
    )
    assert not (embedded_at / "arcadedb" / "databases" / "hipograph").exists()


def test_a_data_directory_that_is_a_file_is_refused(
    embedded_at: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    embedded_at.write_text("not a directory")
    assert main(["init"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"hippograph: HIPPOGRAPH_GRAPH__DATA_DIR is {embedded_at}, which is a file: it must "
        "name the store's directory"
    )


def test_a_store_another_process_holds_is_refused_before_anything_starts(
    embedded_at: Path,
) -> None:
    lock = embedded_at / "arcadedb" / "databases" / "hippograph" / "database.lck"
    lock.parent.mkdir(parents=True)
    lock.touch()
    # A process holding ArcadeDB's lock, as a running `hippograph serve` does.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time\n"
            f"f = open({str(lock)!r}, 'r+b'); fcntl.lockf(f, fcntl.LOCK_EX)\n"
            "print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        # A child of its own: this test process may run ArcadeDB, whose lock a probe
        # here would drop.
        done = subprocess.run(
            [sys.executable, "-m", "hippograph.cli", "keys", "list"],
            capture_output=True,
            text=True,
            timeout=60,
            env=os.environ.copy(),
        )
    finally:
        holder.kill()
        holder.communicate()  # reaps it and closes its pipe
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"hippograph: the store in {embedded_at.resolve()} is in use by another process "
        "(a running `hippograph serve`?): stop it first, or do this through its API"
    )
    assert "Traceback" not in done.stderr


def test_serve_refuses_a_port_in_use_before_starting(
    embedded_at: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"hippograph: port {port} on 127.0.0.1 is in use (another `hippograph serve`?): stop "
        "it, or choose another with --port or HIPPOGRAPH_API__PORT"
    )
    assert not embedded_at.exists()
