"""The client is a distribution of its own: its wheel holds the client and asks for httpx alone."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.wheels import build_wheels, install_into

pytestmark = pytest.mark.slow  # builds a wheel with pip

CLIENT = Path(__file__).resolve().parents[2] / "client"


def test_the_client_wheel_holds_the_client_and_needs_only_httpx(tmp_path: Path) -> None:
    [wheel] = build_wheels([str(CLIENT)], tmp_path)
    with zipfile.ZipFile(wheel) as built:
        names = built.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        requires = [
            line.split(":", 1)[1].strip()
            for line in built.read(metadata).decode().splitlines()
            if line.startswith("Requires-Dist:")
        ]
    assert requires == ["httpx<1,>=0.27"]
    packages = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert packages == {"hippograph_client"}  # nothing of the server
    assert "hippograph_client/py.typed" in names
    # Installed alone (no dependencies pulled), it imports: the server is not needed.
    target = tmp_path / "alone"
    install_into(target, [wheel])
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import hippograph_client as c; "
        "assert c.__file__.startswith(sys.argv[1]), c.__file__; "
        "assert 'hippograph' not in sys.modules and 'strawberry' not in sys.modules; "
        "print(c.HippoGraph.__name__)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe, str(target)],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert shown.stdout.strip() == "HippoGraph"
