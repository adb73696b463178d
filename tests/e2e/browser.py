"""Running the headless-Chromium check scripts of web/ and reading their report."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_check(script: str, *args: str) -> dict[str, Any]:
    """Run ``web/<script>`` with ``args``; its last line of output, a JSON report."""
    if shutil.which("chromium") is None:
        pytest.fail("Chromium is needed: run `make test` (it installs Debian's chromium)")
    done = subprocess.run(
        ["node", str(ROOT / "web" / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT / "web",
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report
