"""The Dockerfile's own steps give a server whose every module imports.

Docker cannot run here, so this follows the image's Python steps itself: it
copies what the final stage's ``COPY`` lines copy (less what
``.dockerignore`` leaves out), builds what its ``pip install --no-deps``
line installs, and imports every module of the result in a Python that sees
those wheels and the third-party packages of this environment, not this
checkout. A distribution of this repository that the server needs and the
image leaves out (the client, which the MCP tools call) fails here, as it
would fail the container at start-up.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.wheels import build_wheels, install_into

ROOT = Path(__file__).resolve().parents[1]


def _instructions(dockerfile: str) -> list[tuple[str, str]]:
    """The final stage's instructions, continuation lines joined: (keyword, arguments)."""
    joined = dockerfile.replace("\\\n", " ")
    steps = [
        line.split(None, 1)
        for line in joined.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    last_from = max(i for i, step in enumerate(steps) if step[0].upper() == "FROM")
    return [(step[0].upper(), step[1] if len(step) > 1 else "") for step in steps[last_from:]]


def _ignored() -> list[str]:
    """The names ``.dockerignore`` leaves out anywhere (its ``**/name`` lines)."""
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.removeprefix("**/") for line in lines if line.startswith("**/")]


def _context(steps: list[tuple[str, str]], into: Path) -> None:
    """Copy what the stage's own ``COPY`` lines copy (not ``--from`` another stage)."""
    skip = shutil.ignore_patterns(*_ignored())
    for keyword, arguments in steps:
        if keyword != "COPY" or arguments.startswith("--from"):
            continue
        *sources, target = shlex.split(arguments)
        for source in sources:
            found = ROOT / source
            placed = into / target / found.name if target.endswith("/") else into / target
            if found.is_dir():
                shutil.copytree(found, placed, ignore=skip)
            else:
                placed.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(found, placed)


def _installed(steps: list[tuple[str, str]]) -> list[str]:
    """What the stage installs from its own files: the paths after ``pip install --no-deps``."""
    for keyword, arguments in steps:
        if keyword == "RUN" and "pip install --no-deps" in arguments:
            command = arguments.split("pip install --no-deps", 1)[1].split("&&", 1)[0]
            return shlex.split(command)
    raise AssertionError("the Dockerfile installs nothing of its own with pip --no-deps")


PROBE = """
import importlib, pkgutil, sys
target, site = sys.argv[1], sys.argv[2]
sys.path[:0] = [target]
sys.path.append(site)
names = []
for found in pkgutil.iter_modules([target]):
    names.append(found.name)
    module = importlib.import_module(found.name)
    if found.ispkg:
        prefix = found.name + "."
        names += [m.name for m in pkgutil.walk_packages(module.__path__, prefix)]
for name in names:
    module = importlib.import_module(name)
    assert module.__file__.startswith(target), (name, module.__file__)
print(len(names))
"""


@pytest.mark.slow  # builds wheels and imports every module in a child: 10 s
def test_the_images_install_steps_give_a_server_whose_modules_all_import(
    tmp_path: Path,
) -> None:
    steps = _instructions((ROOT / "Dockerfile").read_text())
    context = tmp_path / "app"
    _context(steps, context)
    wheels = build_wheels(_installed(steps), tmp_path / "wheels", cwd=context, timeout_s=300)
    target = tmp_path / "image"
    install_into(target, wheels)
    # -S: no site-packages .pth files, so not the editable installs of this
    # checkout; the third-party packages are added as a plain path.
    site = sysconfig.get_paths()["purelib"]
    shown = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, str(target), site],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert shown.returncode == 0, shown.stderr[-3000:]
    # hippograph, schema, resolvers, graph, jobs and the client: about 230 modules.
    assert int(shown.stdout.strip()) > 200, shown.stdout
