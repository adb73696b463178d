"""This repository's distributions built and installed as pip would, for the tests of what a
user installs (the client alone, the Docker image's server)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

PIP = (sys.executable, "-m", "pip", "--quiet", "--disable-pip-version-check")


def build_wheels(
    sources: Iterable[str], into: Path, *, cwd: Path | None = None, timeout_s: float = 120
) -> list[Path]:
    """Wheels of ``sources`` (project folders), without their dependencies, in ``into``."""
    build = ("wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(into))
    subprocess.run([*PIP, *build, *sources], check=True, timeout=timeout_s, cwd=cwd)
    return sorted(into.glob("*.whl"))


def install_into(target: Path, wheels: Iterable[Path]) -> None:
    """``wheels`` installed into the folder ``target``, and nothing else."""
    command = [*PIP, "install", "--no-deps", "--target", str(target), *map(str, wheels)]
    subprocess.run(command, check=True, timeout=120)
