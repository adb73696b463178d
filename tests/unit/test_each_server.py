"""``make test``'s runner: runs side by side, each one's output whole and in order, one verdict."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.each_server import main, pytest_args

# child processes of its own
pytestmark = pytest.mark.slow

# Stands in for pytest: says which server it was given, fails for "bad".
FAKE = """
import sys, time
graph = sys.argv[1].removeprefix("--graph=")
time.sleep(0.2 if graph == "slow" else 0)
print("ran on", graph)
sys.exit(3 if graph == "bad" else 0)
"""


@pytest.fixture
def fake(tmp_path: Path) -> str:
    script = tmp_path / "fake_pytest.py"
    script.write_text(FAKE)
    return f"{sys.executable} {script}"


def test_side_by_side_each_runs_output_is_whole_and_in_the_order_given(
    fake: str, capfd: pytest.CaptureFixture[str]
) -> None:
    # "quick" ends first, but its lines wait for "slow"'s: none interleave, and
    # none is prefixed, so a reader of pytest's output reads each run as ever.
    assert main(["slow", "quick", "--pytest", fake, "--jobs", "2"]) == 0
    lines = capfd.readouterr().out.splitlines()
    assert lines[:4] == [
        "each_server: slow (--graph=slow)",
        "ran on slow",
        "each_server: quick (--graph=quick)",
        "ran on quick",
    ]
    assert "each_server: slow passed" in lines[-2]
    assert "each_server: quick passed" in lines[-1]


def test_a_part_of_a_servers_suite_is_its_paths_and_the_rest_ignores_them() -> None:
    assert pytest_args("arcadedb") == ["--graph=arcadedb"]
    llm = pytest_args("arcadedb:llm")
    processes = pytest_args("arcadedb:processes")
    rest = pytest_args("arcadedb:rest")
    assert llm[0] == processes[0] == rest[0] == "--graph=arcadedb"
    assert llm[1:] == ["tests/llm"]
    assert processes[1:] == ["tests/e2e", "tests/cli", "tests/adapters"]
    parts = ["tests/llm", "tests/e2e", "tests/cli", "tests/adapters"]
    assert rest[1:] == [f"--ignore={path}" for path in parts]
    with pytest.raises(ValueError, match="no part 'nope'"):
        pytest_args("arcadedb:nope")


def test_an_unknown_part_is_refused_before_anything_runs(fake: str) -> None:
    with pytest.raises(SystemExit):
        main(["good:nope", "--pytest", fake])


def test_a_failed_run_fails_the_whole_and_is_named(
    fake: str, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main(["good", "bad", "--pytest", fake, "--jobs", "1"]) == 3
    out = capfd.readouterr().out
    assert "each_server: bad FAILED (exit 3)" in out
    assert "each_server: good passed" in out


def test_no_jobs_is_refused(fake: str) -> None:
    with pytest.raises(SystemExit):
        main(["good", "--pytest", fake, "--jobs", "0"])
