"""``make test``'s runner: pytest's own output one at a time, prefixed side by side, one verdict."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.each_server import main

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


def test_side_by_side_each_line_says_its_server(
    fake: str, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main(["slow", "quick", "--pytest", fake, "--jobs", "2"]) == 0
    out = capfd.readouterr().out
    assert "[slow] ran on slow" in out
    assert "[quick] ran on quick" in out
    assert "each_server: slow passed" in out
    assert "each_server: quick passed" in out


def test_one_at_a_time_the_output_is_pytests_own(
    fake: str, capfd: pytest.CaptureFixture[str]
) -> None:
    # CI reads pytest's summary lines from the start of a line: no prefix then.
    assert main(["slow", "quick", "--pytest", fake]) == 0
    lines = capfd.readouterr().out.splitlines()
    assert lines[:2] == ["ran on slow", "ran on quick"]


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
