"""Two runs of ``prepare-jvm`` at once: one makes the archives, the other waits and finds them."""

from __future__ import annotations

import fcntl
import threading
from pathlib import Path

import pytest

from graph.jvm_archive import Archives, Prepared, prepare

# No JVM here: the test stands in for the run that holds the lock and writes the
# archives itself. A trainer that would run shows as a failed training start.
NO_TRAINER = "no_such_module_of_hippograph"


def test_a_run_waits_for_the_one_making_the_archives_and_finds_them_made(tmp_path: Path) -> None:
    found = Archives(tmp_path / "jvm" / "key")
    found.directory.mkdir(parents=True)
    outcome: list[Prepared | BaseException] = []

    def second_run() -> None:
        try:
            outcome.append(prepare(NO_TRAINER, found))
        except BaseException as exc:  # reported by the assertion below
            outcome.append(exc)

    with found.lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # the first run, making them
        waiting = threading.Thread(target=second_run)
        waiting.start()
        try:
            waiting.join(timeout=1.0)
            assert waiting.is_alive(), f"the second run did not wait for the lock: {outcome}"
            assert not found.origin.exists(), "the second run began making archives too"
        finally:
            # Made, whatever the assertions said: a run still waiting then finds
            # them, rather than dumping a real JDK archive after a failed test.
            found.base.write_bytes(b"base")
            found.top.write_bytes(b"top")
    waiting.join(timeout=10.0)
    [prepared] = outcome
    assert isinstance(prepared, Prepared), prepared
    assert not prepared.made
    assert found.base.read_bytes() == b"base"
    assert found.top.read_bytes() == b"top"


def test_a_run_that_ended_leaves_the_lock_free(tmp_path: Path) -> None:
    found = Archives(tmp_path / "jvm" / "key")
    found.directory.mkdir(parents=True)
    found.base.write_bytes(b"base")
    found.top.write_bytes(b"top")
    assert not prepare(NO_TRAINER, found).made  # found ready before the lock: no lock taken
    found.top.unlink()
    with pytest.raises(RuntimeError, match="training start"):
        prepare(NO_TRAINER, found)  # the lock taken, then the training start fails
    with found.lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if still held
