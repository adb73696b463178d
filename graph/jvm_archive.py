"""Class-data sharing archives for the embedded ArcadeDB's JVM: a start with less to load.

The Java runtime inside the ``arcadedb-embedded`` package ships without the
class-data sharing (CDS) archive a full JDK carries, so every start of the
embedded graph (``hippograph serve``, each command of the command line, each
test worker) parses every class it loads, the JDK's own and ArcadeDB's, and
verifies ArcadeDB's, anew. Two archives give that work back:

* ``base.jsa``, the JDK's classes, dumped by the package's own ``java
  -Xshare:dump`` from the class list the runtime ships;
* ``top.jsa``, the classes a start of the embedded graph loads beyond those
  (ArcadeDB's engine, its Bolt server and Cypher), dumped when a training
  start exits (``-XX:ArchiveClassesAtExit``): it starts the server, sets up
  the schema on a throwaway database, writes and reads a user.

``hippograph prepare-jvm`` (:mod:`hippograph.cli_jvm`, which ``make run`` and
``make test`` call) makes both, in the user's cache under a key of the runtime
and the jars, so an upgraded package gets archives of its own; each run
removes the archives of installs that are gone. Every start of the embedded
graph uses them when they are there and starts as before when they are not. The
JVM checks an archive against its own build and the class path and ignores
one that does not match (``-Xshare:auto``, with the archive's messages
silenced), so a stale or damaged archive costs the time it would have saved,
nothing more.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hippograph.user_dirs import user_cache

# The archives' own messages, switched off: an archive that does not match is
# then ignored in silence (the JVM prints them on stdout, into a command's output).
_QUIET = ("-Xlog:cds*=off", "-Xlog:aot*=off")
# What the package starts every JVM with (jvm.py) and a dump must match.
_DUMP_FLAGS = ("-XX:+UseCompactObjectHeaders",)
# A training start does little, but on a busy machine a JVM's start is slow.
_TRAINING_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True)
class Archives:
    """Where the archives of this install of the embedded graph live."""

    directory: Path

    @property
    def base(self) -> Path:
        """The JDK's classes."""
        return self.directory / "base.jsa"

    @property
    def top(self) -> Path:
        """The classes a start of the embedded graph loads beyond the JDK's."""
        return self.directory / "top.jsa"

    @property
    def lock(self) -> Path:
        """Held while the archives are made, so that two runs never make them at once."""
        return self.directory / "lock"

    @property
    def origin(self) -> Path:
        """The install's Java runtime the archives are of, as a path (to prune them by)."""
        return self.directory / "origin"

    def ready(self) -> bool:
        """Whether both archives are there (written whole: each is renamed into place)."""
        return self.base.is_file() and self.top.is_file()


def archives(cache_dir: Path | None = None) -> Archives:
    """This install's archives: ``<cache>/<key>``, the cache being ``$XDG_CACHE_HOME/
    hippograph/jvm`` (else ``~/.cache/hippograph/jvm``) unless ``cache_dir`` is given."""
    return Archives((cache_dir or user_cache("jvm")) / _install_key())


def start_options(found: Archives | None = None) -> list[str]:
    """The JVM options that use this install's archives; none when they are not made
    (or the cache cannot be read: the archives only ever make a start faster)."""
    try:
        found = found or archives()
        if not found.ready():
            return []
    except OSError:
        return []
    return [f"-XX:SharedArchiveFile={found.base}{os.pathsep}{found.top}", *_QUIET]


def training_options(base: Path, top: Path) -> list[str]:
    """The JVM options of a training start: ``base`` in use, ``top`` written at exit."""
    return [f"-XX:SharedArchiveFile={base}", f"-XX:ArchiveClassesAtExit={top}", *_QUIET]


@dataclass(frozen=True, slots=True)
class Prepared:
    """What :func:`prepare` did."""

    archives: Archives
    made: bool  # False: both were there already
    seconds: float


def prepare(trainer: str, found: Archives | None = None) -> Prepared:
    """Make this install's archives unless they are there; raises ``RuntimeError`` if a
    step fails (the embedded graph still starts, without them).

    ``trainer`` is the module whose ``python -m trainer BASE TOP`` is the
    training start: it starts the embedded graph with :func:`training_options`
    and uses it as the service does (the composition of a store is the
    service's, not the graph's).
    """
    found = found or archives()
    started = time.monotonic()
    _prune(found.directory.parent)
    if found.ready():
        return Prepared(found, made=False, seconds=0.0)
    try:
        found.directory.mkdir(parents=True, exist_ok=True)
        # Two runs at once (two fresh clones' `make`) would each dump a base and
        # train a top against their own: the last renames could pair one's top
        # with the other's base, which the JVM then ignores. One makes them; the
        # other waits and finds them made.
        with _held(found.lock):
            if found.ready():
                return Prepared(found, made=False, seconds=time.monotonic() - started)
            found.origin.write_text(str(_libjvm()))
            if not found.base.is_file():
                _write_whole(found.base, _dump_base)
            _write_whole(found.top, lambda top: _train(trainer, found.base, top))
    except OSError as exc:
        raise RuntimeError(f"{found.directory}: {exc.strerror or exc}") from exc
    return Prepared(found, made=True, seconds=time.monotonic() - started)


@contextmanager
def _held(lock: Path) -> Iterator[None]:
    """An exclusive lock on the file ``lock`` (made if missing), waited for; the system
    releases it when the process ends, so a run that dies leaves no lock behind."""
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _prune(cache_dir: Path) -> None:
    """Remove the archives of installs that are gone (a deleted checkout's venv).

    Each install has its own (about 60 MB); without this, every clone that
    ran ``make`` would leave a set behind for good. Best effort: what cannot
    be read or removed stays.
    """
    try:
        directories = list(cache_dir.iterdir()) if cache_dir.is_dir() else []
    except OSError:
        return
    for directory in directories:
        try:
            runtime = Path((directory / "origin").read_text().strip())
        except OSError:
            continue  # no origin: not one of ours, or being made right now
        if not runtime.exists():
            shutil.rmtree(directory, ignore_errors=True)


def _write_whole(path: Path, write: Callable[[Path], None]) -> None:
    """Run ``write(temporary path)``, then rename the file into ``path``: a reader sees
    the whole archive or none, whatever else runs at once."""
    # A name of this process's own, which the JVM creates itself.
    temporary = path.with_name(f".{path.stem}-{os.getpid()}.jsa")
    try:
        write(temporary)
        if not temporary.is_file():
            raise RuntimeError(f"the JVM wrote no archive at {temporary}")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _libjvm() -> Path:
    """The package's Java runtime, as JPype loads it: ``<jre>/lib/server/libjvm.so``."""
    # Imported here: the package imports JPype (a fifth of a second), and a
    # process on a Neo4j graph never needs it.
    from arcadedb_embedded.jvm import get_bundled_jre_lib_path

    return Path(get_bundled_jre_lib_path())


def _java() -> Path:
    return _libjvm().parents[2] / "bin" / "java"


def _dump_base(target: Path) -> None:
    command = [str(_java()), *_DUMP_FLAGS, "-Xshare:dump", f"-XX:SharedArchiveFile={target}"]
    _run(command, "dumping the JDK's classes")


def _train(trainer: str, base: Path, top: Path) -> None:
    command = [sys.executable, "-m", trainer, str(base), str(top)]
    _run(command, "a training start of the embedded graph")


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=_TRAINING_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"{what} failed: {exc}") from exc
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise RuntimeError(f"{what} failed (exit {done.returncode}): " + " | ".join(tail))


def _install_key() -> str:
    """A digest of the runtime and the jars: another install, another set of archives."""
    from arcadedb_embedded.jvm import get_jar_path

    libjvm = _libjvm()
    digest = hashlib.sha256(str(libjvm).encode())
    release = libjvm.parents[2] / "release"
    if release.is_file():
        digest.update(release.read_bytes())
    for jar in sorted(Path(get_jar_path()).glob("*.jar")):
        stat = jar.stat()
        digest.update(f"{jar.name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]
