"""The lock files pin every package the distributions ask for, at a version they accept.

``make install`` installs requirements.lock, then the server and the client
with ``--no-deps``: a dependency added to a ``pyproject.toml`` and not to the
lock would be missing from a fresh install, and found only when its import
fails. The dev extra is pinned by requirements-dev.lock, installed on top.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _project(path: Path) -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads(path.read_text())["project"]
    return project


def _pins(*locks: str) -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for lock in locks:
        for line in (ROOT / lock).read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                name, _, version = line.partition("==")
                pins[canonicalize_name(name)] = Version(version.split(";")[0].strip())
    return pins


def _unmet(requirements: list[str], pins: dict[str, Version]) -> list[str]:
    """The requirements no pin satisfies (missing, or at a version they refuse)."""
    unmet = []
    for text in requirements:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        pinned = pins.get(canonicalize_name(requirement.name))
        if pinned is None or not requirement.specifier.contains(pinned, prereleases=True):
            unmet.append(f"{text} (locked: {pinned})")
    return unmet


def test_requirements_lock_pins_what_the_server_and_the_client_need() -> None:
    server = _project(ROOT / "pyproject.toml")
    client = _project(ROOT / "client" / "pyproject.toml")
    pins = _pins("requirements.lock")
    # The client is installed from client/ beside the server, not from the lock.
    pins[canonicalize_name(client["name"])] = Version(client["version"])
    assert _unmet([*server["dependencies"], *client["dependencies"]], pins) == []


def test_the_dev_lock_pins_the_dev_extra() -> None:
    extras = _project(ROOT / "pyproject.toml")["optional-dependencies"]
    pins = _pins("requirements.lock", "requirements-dev.lock")
    assert _unmet(extras["dev"], pins) == []
