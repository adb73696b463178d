"""A Neo4j server process on loopback, for tests and benchmarks.

:class:`Neo4jServer` starts the launcher (``Launcher.java``) on a release
installed by :mod:`neo4j_launcher.build`, waits for its ``NEO4J_READY``
line, and stops it. The launcher's standard input is a pipe held by this
process: when this process exits, however it exits, the pipe closes and the
launcher shuts Neo4j down and exits too, so no test run leaves a server
behind. Without ``store`` the database lives in a temporary folder that the
launcher deletes at exit; with one (a restart test) it is kept.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from neo4j_launcher.build import Installed, LauncherError, install

_READY = re.compile(r"^NEO4J_READY (bolt://[\d.]+:\d+) (\S+)$", re.MULTILINE)


class Neo4jServer:
    """One launcher process: Neo4j Community with Bolt on 127.0.0.1.

    ``jvm_options`` come after the launcher's own (heap, G1, whole stack
    traces): the test suite's short-lived servers compile with C1 alone.
    """

    user = "neo4j"

    def __init__(
        self,
        release: str = "5.26",
        *,
        store: Path | None = None,
        port: int = 0,
        password: str | None = None,
        heap: str = "1g",
        page_cache: str = "256m",
        log_path: Path | None = None,
        jvm_options: Sequence[str] = (),
    ) -> None:
        self.release = release
        self.store = store
        self.port = port
        self.password = password or "pw-" + secrets.token_urlsafe(18)
        self._heap = heap
        self._page_cache = page_cache
        self._jvm_options = tuple(jvm_options)
        self.log_path = log_path or Path(
            tempfile.mkstemp(prefix=f"neo4j-{release}-", suffix=".log")[1]
        )
        self._process: subprocess.Popen[bytes] | None = None
        self.uri = ""
        self.version = ""

    def start(self, timeout: float = 180.0) -> Neo4jServer:
        """Start Neo4j and return once Bolt answers (10 s here; the first start resolves jars)."""
        if self._process is not None:
            return self
        installed: Installed = install(self.release)
        command = [
            str(installed.java),
            f"-Xmx{self._heap}",
            "-XX:+UseG1GC",
            # As Neo4j's own neo4j.conf has it: whole stack traces in its log.
            "-XX:-OmitStackTraceInFastThrow",
            *self._jvm_options,
            f"@{installed.argfile}",
            "--port",
            str(self.port),
            "--conf",
            f"server.memory.pagecache.size={self._page_cache}",
        ]
        if self.store is not None:
            command += ["--store", str(self.store)]
        env = {**os.environ, "NEO4J_LAUNCHER_PASSWORD": self.password}
        # The log is appended to across restarts: only what follows this
        # start's offset can be this start's READY line.
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=log, stderr=log, env=env
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = _READY.search(self._log_since(offset))
            if found:
                self.uri, self.version = found.group(1), found.group(2)
                return self
            if self._process.poll() is not None:
                break
            time.sleep(0.1)
        tail = self._log_since(offset)[-3000:]
        self.stop()
        raise LauncherError(f"Neo4j {self.release} did not start; its log ends:\n{tail}")

    def _log_since(self, offset: int) -> str:
        with self.log_path.open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")

    def stop(self, timeout: float = 60.0) -> None:
        """Shut Neo4j down cleanly (closing its input), or kill it after ``timeout``."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):  # already gone
                process.stdin.close()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> Neo4jServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
