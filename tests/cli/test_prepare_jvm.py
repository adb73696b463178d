"""``hippograph prepare-jvm``: the embedded graph's JVM archives, made once, used, never in the way."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from graph.jvm_archive import archives, start_options

pytestmark = pytest.mark.slow  # JVMs in child processes: a dump, a training start, starts

# A start of the embedded graph in a process of its own (the JVM starts once a process).
START = (
    "import sys; from pathlib import Path; from graph.embedded import EmbeddedArcadeDB; "
    "s = EmbeddedArcadeDB(Path(sys.argv[1])); s.start(); s.stop()"
)


def _run(args: list[str], cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        env={**os.environ, "XDG_CACHE_HOME": str(cache), **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _prepare(cache: Path) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "hippograph.cli", "prepare-jvm"], cache)


def _archives(cache: Path) -> Path:
    [directory] = [d for d in (cache / "hippograph" / "jvm").iterdir() if (d / "base.jsa").exists()]
    return directory


def _start(cache: Path, data_dir: Path, jvm_args: str) -> subprocess.CompletedProcess[str]:
    # The suite's own JVM options first (tests/conftest.py): a start as the tests make it.
    given = os.environ.get("ARCADEDB_JVM_ARGS", "")
    return _run(
        [sys.executable, "-c", START, str(data_dir)], cache, ARCADEDB_JVM_ARGS=f"{given} {jvm_args}"
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user cache with this install's archives made in it, once for the module."""
    cache = tmp_path_factory.mktemp("xdg-cache")
    # The archives of two other installs: one whose runtime is gone, one still there.
    for name, runtime in (("gone", cache / "deleted-venv" / "libjvm.so"), ("kept", cache)):
        other = cache / "hippograph" / "jvm" / name
        other.mkdir(parents=True)
        (other / "origin").write_text(str(runtime))
        (other / "top.jsa").write_bytes(b"another install's")
    made = _prepare(cache)
    assert made.returncode == 0, made.stderr
    assert re.fullmatch(
        rf"the embedded graph's JVM archives made in {re.escape(str(_archives(cache)))} "
        r"\(\d+\.\d s\)\n",
        made.stdout,
    ), made.stdout
    return cache


def test_the_archives_are_made_once_and_found_again(cache: Path) -> None:
    directory = _archives(cache)
    assert sorted(p.name for p in directory.iterdir()) == ["base.jsa", "lock", "origin", "top.jsa"]
    assert Path((directory / "origin").read_text()).name == "libjvm.so"
    again = _prepare(cache)
    assert again.returncode == 0, again.stderr
    assert again.stdout == f"the embedded graph's JVM archives are in {directory} already\n"


def test_each_run_removes_the_archives_of_installs_that_are_gone(cache: Path) -> None:
    jvm = cache / "hippograph" / "jvm"
    assert sorted(p.name for p in jvm.iterdir()) == sorted(["kept", _archives(cache).name])
    # An install deleted since: the next run, with nothing to make, removes its archives.
    (jvm / "deleted-since").mkdir()
    (jvm / "deleted-since" / "origin").write_text(str(cache / "another-venv" / "libjvm.so"))
    assert _prepare(cache).returncode == 0
    assert sorted(p.name for p in jvm.iterdir()) == sorted(["kept", _archives(cache).name])


def test_a_start_loads_arcadedbs_classes_from_the_archives(cache: Path, tmp_path: Path) -> None:
    # -Xshare:on: the JVM refuses to start unless it maps both archives.
    log = tmp_path / "classes.log"
    started = _start(cache, tmp_path / "data", f"-Xshare:on -Xlog:class+load=info:file={log}")
    assert started.returncode == 0, started.stderr
    sources = Counter(
        "top" if line.endswith("(top)") else "base" if "shared objects file" in line else "jar"
        for line in log.read_text().splitlines()
        if " com.arcadedb." in line or " java.lang.Object " in line
    )
    assert sources["base"] == 1, sources  # java.lang.Object: the JDK's own classes
    assert sources["top"] > 300, sources  # ArcadeDB's server, its engine and its Bolt plugin
    assert sources["top"] > 20 * sources["jar"], sources


def test_a_damaged_archive_is_ignored_in_silence(cache: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "xdg-cache"
    directory = damaged / "hippograph" / "jvm" / _archives(cache).name
    directory.mkdir(parents=True)
    (directory / "base.jsa").write_bytes((_archives(cache) / "base.jsa").read_bytes()[:4096])
    (directory / "top.jsa").write_bytes(b"not an archive")
    started = _start(damaged, tmp_path / "data", "")
    assert started.returncode == 0, started.stderr
    assert started.stdout == ""  # the JVM says nothing into a command's output
    assert "cds" not in started.stderr, started.stderr


def test_a_cache_that_cannot_be_written_fails_the_command_in_one_line(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.write_text("a file where the cache should be")
    failed = _prepare(cache)
    assert failed.returncode == 1
    assert failed.stdout == ""
    [line] = failed.stderr.splitlines()
    assert line.startswith("hippograph: the JVM's class-data archives could not be made ("), line
    assert line.endswith("); the embedded graph starts without them"), line
    assert "Not a directory" in line, line


def test_a_cache_that_cannot_be_read_leaves_the_start_as_it_was(tmp_path: Path) -> None:
    # A name longer than the file system allows: reading the cache raises.
    unreadable = archives(tmp_path / ("x" * 300))
    with pytest.raises(OSError, match="File name too long"):
        unreadable.ready()
    assert start_options(unreadable) == []
