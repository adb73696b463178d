"""Embedded ArcadeDB: a Bolt server inside this process (the default graph).

The ``arcadedb-embedded`` package brings its own JRE and ArcadeDB's Bolt plugin.
What this module adds is a lifecycle that always ends: the JVM is started with
``-Xrs`` so SIGINT and SIGTERM reach Python (uvicorn) instead of the JVM, whose
own handler segfaults in JPype; and :meth:`EmbeddedArcadeDB.stop` must run in
a ``finally`` (the app's shutdown, a test's teardown), because a process whose
server is still running never exits. The JVM can start once per process, so a
process runs at most one embedded server; databases in it are cheap.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from graph.jvm_archive import start_options
from graph.tls import shared_context
from hippograph.errors import ConfigError, Unavailable

_LOGGING = """\
handlers = java.util.logging.FileHandler
.level = WARNING
com.arcadedb.bolt.level = SEVERE
java.util.logging.FileHandler.level = WARNING
java.util.logging.FileHandler.pattern = {log_dir}/arcadedb.%g.log
java.util.logging.FileHandler.limit = 10000000
java.util.logging.FileHandler.count = 3
java.util.logging.FileHandler.formatter = java.util.logging.SimpleFormatter
"""

_jvm_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Endpoints:
    """How to reach a running embedded server."""

    bolt_uri: str
    http_url: str
    user: str
    password: str


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _root_password(data_dir: Path, configured: str | None) -> str:
    """The root password: configured, or made once and kept beside the data.

    ArcadeDB records the root user at the first start only, so a password
    generated afresh on every start would lock us out of our own data.
    """
    if configured:
        return configured
    path = data_dir / ".root-password"
    if path.exists():
        return path.read_text().strip()
    password = secrets.token_urlsafe(24)
    path.write_text(password)
    path.chmod(0o600)
    return password


def _start_jvm(data_dir: Path, heap: str, archive_options: Sequence[str] | None) -> None:
    import jpype
    from arcadedb_embedded.jvm import start_jvm

    with _jvm_lock:
        if jpype.isJVMStarted():
            return
        # JPype shuts the JVM down from the thread that started it; a JVM started
        # in a worker thread makes the process hang at exit, waiting for it.
        if threading.current_thread() is not threading.main_thread():
            raise ConfigError("the embedded ArcadeDB's JVM must be started in the main thread")
        # Looked up only now that this process's JVM is starting.
        archives = start_options() if archive_options is None else archive_options
        log_dir = (data_dir / "log").resolve()
        log_dir.mkdir(parents=True, exist_ok=True)
        logging_file = log_dir / "logging.properties"
        logging_file.write_text(_LOGGING.format(log_dir=log_dir))
        # The package reads its crash-log location from the environment only.
        os.environ.setdefault("ARCADEDB_JVM_ERROR_FILE", str(log_dir / "hs_err_pid%p.log"))
        with _without_incubator_warning():
            start_jvm(
                heap_size=heap,
                jvm_args=[
                    "-Xrs",
                    f"-Djava.util.logging.config.file={logging_file}",
                    "--sun-misc-unsafe-memory-access=allow",
                    *archives,
                ],
            )


_INCUBATOR = b"WARNING: Using incubator modules"


@contextlib.contextmanager
def _without_incubator_warning() -> Iterator[None]:
    """The JVM's start-up, its stderr passed on but for the incubator-modules line.

    ArcadeDB's vector index needs jdk.incubator.vector, and the JVM says so
    on stderr, in the middle of every command's output; nothing of ours can
    act on it. Anything else the JVM prints there comes through.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            rest = b"".join(
                line for line in captured.read().splitlines(True) if not line.startswith(_INCUBATOR)
            )
            if rest:
                os.write(2, rest)


def _check_name(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,62}", name):
        raise ConfigError(f"database name {name!r} must be letters, digits and _")
    return name


class EmbeddedArcadeDB:
    """An ArcadeDB server with Bolt on a free loopback port."""

    def __init__(
        self,
        data_dir: Path,
        *,
        heap: str = "2g",
        password: str | None = None,
        archive_options: Sequence[str] | None = None,
    ) -> None:
        """``archive_options``: the JVM's class-data archives (:mod:`graph.jvm_archive`);
        None uses this install's when they are made."""
        self._data_dir = data_dir
        self._heap = heap
        self._password = password
        self._archive_options = archive_options
        self._server: Any = None
        self.endpoints: Endpoints | None = None

    @property
    def _root(self) -> Path:
        # The server's root folder; its databases are folders in <root>/databases.
        return self._data_dir / "arcadedb"

    def start_jvm(self) -> None:
        """Start the JVM if this process has none yet; call it from the main thread."""
        self._data_dir.mkdir(parents=True, exist_ok=True)
        _start_jvm(self._data_dir, self._heap, self._archive_options)

    def start(self) -> Endpoints:
        """Start the JVM (once per process) and the server; blocking, about 1–2 s.

        Call it, and :meth:`stop`, on the main thread: every Python thread that
        calls into Java stays attached to the JVM, and attached threads make the
        JVM's shutdown at exit hang or crash.
        """
        if self.endpoints is not None:
            return self.endpoints
        self.start_jvm()
        password = _root_password(self._data_dir, self._password)
        if len(password) < 8:
            raise ConfigError("HIPPOGRAPH_GRAPH__PASSWORD must have at least 8 characters")
        from arcadedb_embedded import create_server

        last_error: Exception | None = None
        for _ in range(3):  # a port found free can be taken before we bind it
            http_port, bolt_port = free_port(), free_port()
            server = create_server(
                str(self._root),
                password,
                config={
                    "host": "127.0.0.1",
                    "http_port": http_port,
                    "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
                    "bolt_port": bolt_port,
                },
            )
            try:
                server.start()
            except Exception as exc:
                last_error = exc
                continue
            self._server = server
            self.endpoints = Endpoints(
                bolt_uri=f"bolt://127.0.0.1:{bolt_port}",
                http_url=f"http://127.0.0.1:{http_port}",
                user="root",
                password=password,
            )
            return self.endpoints
        raise Unavailable(f"embedded ArcadeDB did not start: {last_error}")

    def create_database(self, name: str) -> None:
        """Create database ``name`` unless it exists."""
        response = self._server_command(f"create database {_check_name(name)}")
        if response.status_code == 409 and "already exists" in response.text:
            return
        response.raise_for_status()

    def drop_database(self, name: str) -> None:
        """Drop database ``name`` and its files (tests use one per test)."""
        self._server_command(f"drop database {_check_name(name)}").raise_for_status()

    def close_database(self, name: str) -> None:
        """Close database ``name``: its files are flushed and left alone until it is opened."""
        self._server_command(f"close database {_check_name(name)}").raise_for_status()

    def clone_database(self, source: str, target: str) -> None:
        """Create database ``target`` as a copy of closed database ``source``, and open it.

        The copy is of ``source``'s files as they lie, so ``source`` must be
        closed (:meth:`close_database`) and stay unused. Tests start each
        database as a copy of one that is set up: a copy and start-up's check
        of the schema it holds take about 0.14 s, a new database's schema
        0.4 s (``bench/experiments/database_setup.py``).
        """
        source, target = _check_name(source), _check_name(target)
        directory = self._root / "databases"
        shutil.copytree(directory / source, directory / target)
        self._server_command(f"open database {target}").raise_for_status()

    def _server_command(self, command: str) -> httpx.Response:
        # Over HTTP, not through JPype: a Python thread that calls into Java is
        # attached to the JVM, and threads left attached crash the JVM's exit.
        endpoints = self.endpoints
        if endpoints is None:
            raise Unavailable("embedded ArcadeDB is not running")
        return httpx.post(
            f"{endpoints.http_url}/api/v1/server",
            auth=(endpoints.user, endpoints.password),
            json={"command": command},
            timeout=60.0,
            verify=shared_context(),
        )

    def stop(self) -> None:
        """Stop the server; idempotent. The JVM stays (it cannot restart)."""
        server, self._server = self._server, None
        self.endpoints = None
        if server is not None:
            server.stop()
