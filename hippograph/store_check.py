"""Before a command opens the embedded store: is it there, is it free, is the port free.

Without these checks a mistyped ``HIPPOGRAPH_GRAPH__DATA_DIR`` made a new,
empty store with a new admin key, and the only symptom came later ("unknown
or revoked API key"); a command run beside ``hippograph serve`` failed deep
in ArcadeDB's start-up; a second ``serve`` logged a traceback after loading
the model. Each now fails first, in one line that names the fix.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import socket
from pathlib import Path

from hippograph.errors import ConfigError, Unavailable
from hippograph.settings import GraphSettings

log = logging.getLogger("hippograph")

DATA_DIR = "HIPPOGRAPH_GRAPH__DATA_DIR"


def database_dir(graph: GraphSettings) -> Path:
    """Where the embedded ArcadeDB keeps the configured database's files."""
    return graph.data_dir / "arcadedb" / "databases" / graph.database


def check_store(graph: GraphSettings, *, create: bool) -> bool:
    """Refuse an embedded store that cannot be opened; True when a new one will be made.

    ``create``: the command may make the store (``serve``, ``init``,
    ``import``; ``mcp`` with the admin key set); every other command needs
    one that exists. A store is in use when another
    process holds ArcadeDB's lock on it. Servers reached over the network
    are not checked here: they answer for themselves.
    """
    if graph.server != "arcadedb" or not graph.embedded:
        return False
    data_dir = graph.data_dir
    if data_dir.exists() and not data_dir.is_dir():
        raise ConfigError(
            f"{DATA_DIR} is {data_dir}, which is a file: it must name the store's directory"
        )
    database = database_dir(graph)
    if not database.is_dir():
        if not create:
            others = sorted(d.name for d in database.parent.glob("*") if d.is_dir())
            if others:
                # The store is there: the database name is what is off.
                raise ConfigError(
                    f"the store in {data_dir.resolve()} has no database {graph.database!r} "
                    f"(HIPPOGRAPH_GRAPH__DATABASE); it has {', '.join(map(repr, others))}"
                )
            raise ConfigError(
                f"there is no HippoGraph store in {data_dir.resolve()} ({DATA_DIR}): set it to "
                "your store's directory, or make one there with `hippograph serve` or "
                "`hippograph init`"
            )
        return True
    if _locked(database / "database.lck"):
        raise Unavailable(
            f"the store in {data_dir.resolve()} is in use by another process (a running "
            "`hippograph serve`?): stop it first, or do this through its API"
        )
    return False


def _locked(lock_file: Path) -> bool:
    """Whether another process holds ArcadeDB's lock (a POSIX lock) on ``lock_file``."""
    if not lock_file.exists() or _jvm_started():
        # Closing a descriptor drops every POSIX lock this process holds on the
        # file: with ArcadeDB running here, probing would release its own lock.
        return False
    try:
        with lock_file.open("r+b") as handle:
            try:
                fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EACCES, errno.EAGAIN):
                    return True
                raise
            fcntl.lockf(handle, fcntl.LOCK_UN)
    except PermissionError:
        return False  # not ours to probe: ArcadeDB will say what is wrong
    return False


def _jvm_started() -> bool:
    try:
        import jpype
    except ImportError:
        return False
    return bool(jpype.isJVMStarted())


def check_port(host: str, port: int) -> None:
    """Refuse a port another process listens on, before the model and the graph start."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"port {port} on {host} is in use (another `hippograph serve`?): stop it, "
                    "or choose another with --port or HIPPOGRAPH_API__PORT"
                ) from None
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
