"""A Redis server of the test's own, on a free loopback port, stopped afterwards.

The machine may run a Redis of its own; tests never touch it, so that they
neither depend on its state nor leave anything in it.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Sequence

import pytest

from bench.stack import redis_answers
from graph.embedded import free_port

# What most tests want: nothing written to disk.
NO_PERSISTENCE = ("--save", "", "--appendonly", "no")


class PrivateRedis:
    """``redis-server`` as a child process, without persistence unless ``options`` say so."""

    def __init__(self, options: Sequence[str] = NO_PERSISTENCE) -> None:
        executable = shutil.which("redis-server")
        if executable is None:
            pytest.fail(
                "redis-server is not on PATH; run `make test`, which installs it "
                "(Debian package redis-server)"
            )
        self._executable = executable
        self._options = list(options)
        self._process: subprocess.Popen[str] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """Where it listens."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        """Start it and wait until it answers PING (a few attempts: ports can be taken)."""
        output = ""
        for _ in range(3):
            self.port = free_port()
            process = subprocess.Popen(
                [
                    self._executable,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    *self._options,
                    "--daemonize",
                    "no",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            deadline = time.monotonic() + 10
            while process.poll() is None and time.monotonic() < deadline:
                if redis_answers(self.port):
                    self._process = process
                    return self
                time.sleep(0.02)
            _stop(process)
            output = process.stdout.read() if process.stdout else ""
        pytest.fail(f"redis-server did not start:\n{output}")

    def stop(self) -> None:
        """Stop it; idempotent."""
        process, self._process = self._process, None
        if process is not None:
            _stop(process)


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
