"""`hippograph serve` as a user runs it: starts, answers, restarts on its data, exits on signals.

On the ArcadeDB run that is `make run`'s embedded default (its own server in
the data directory); on a Neo4j run, serve on the run's Neo4j server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from graph.embedded import free_port
from tests.graphs import TestDatabase

pytestmark = pytest.mark.slow  # `hippograph serve` as a child process, restarted and signalled

ROOT = Path(__file__).resolve().parents[2]
HIPPOGRAPH = Path(sys.executable).parent / "hippograph"
# The signals that stop serve: Ctrl-C's, and a service manager's.
STOP_SIGNALS = pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])


def _start(graph_db: TestDatabase, data_dir: Path, port: int) -> subprocess.Popen[str]:
    graph = {} if graph_db.server == "arcadedb" else graph_db.environment(data_dir)
    env = {
        **os.environ,
        "HIPPOGRAPH_GRAPH__DATA_DIR": str(data_dir),
        "HIPPOGRAPH_API__PORT": str(port),
        **graph,
    }
    env.pop("HIPPOGRAPH_API__ADMIN_KEY", None)
    return subprocess.Popen(
        [str(HIPPOGRAPH), "serve"],
        env=env,
        cwd=data_dir.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _serve(graph_db: TestDatabase, tmp_path: Path) -> tuple[Path, int, subprocess.Popen[str]]:
    """``serve`` started on a new data directory in ``tmp_path`` and a free port: all three."""
    data_dir = tmp_path / "data"
    port = free_port()
    return data_dir, port, _start(graph_db, data_dir, port)


def _first_answer(process: subprocess.Popen[str], port: int, key: Path, timeout: float) -> float:
    """Seconds until `viewer` answers with the admin key written at first start."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if process.poll() is not None:
            pytest.fail(f"serve exited early:\n{process.stdout.read() if process.stdout else ''}")
        if key.exists():
            try:
                response = httpx.post(
                    f"http://127.0.0.1:{port}/graphql",
                    json={"query": "{ viewer { admin } }"},
                    headers={"Authorization": f"Bearer {key.read_text().strip()}"},
                    timeout=5,
                )
                if response.status_code == 200 and response.json()["data"]["viewer"]["admin"]:
                    return time.monotonic() - started
            except httpx.HTTPError:
                pass
        time.sleep(0.1)
    pytest.fail("serve did not answer in time")


def _stop(process: subprocess.Popen[str], sig: signal.Signals) -> tuple[int, str, float]:
    started = time.monotonic()
    process.send_signal(sig)
    try:
        output, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"serve ignored {sig.name}")
    return process.returncode, output, time.monotonic() - started


@STOP_SIGNALS
def test_serve_answers_restarts_and_exits_on_signals(
    graph_db: TestDatabase, tmp_path: Path, sig: signal.Signals
) -> None:
    data_dir, port, first = _serve(graph_db, tmp_path)
    cold = _first_answer(first, port, data_dir / "admin.key", timeout=60)
    embedded = graph_db.server == "arcadedb"
    if embedded:
        # A second serve on the same store (a second `make run`): one line, at once.
        twice = _start(graph_db, data_dir, free_port())
        output, _ = twice.communicate(timeout=30)
        assert twice.returncode == 2, output
        assert output.strip().splitlines()[-1] == (
            f"hippograph: the store in {data_dir.resolve()} is in use by another process "
            "(a running `hippograph serve`?): stop it first, or do this through its API"
        )
    code, output, took = _stop(first, sig)
    assert code in (0, -sig, 128 + sig), output
    assert "Traceback" not in output, output  # Ctrl-C is a stop, not a crash
    assert "incubator modules" not in output
    if embedded:
        assert "no store in" in output  # where the new store went
    assert took < 15
    assert "SIGSEGV" not in output
    assert "hs_err" not in output
    assert cold < 30, f"cold start took {cold:.1f}s"

    # Same data again: the root password and the admin key from the first start still work.
    second = _start(graph_db, data_dir, port)
    _first_answer(second, port, data_dir / "admin.key", timeout=60)
    code, output, _ = _stop(second, sig)
    assert code in (0, -sig, 128 + sig), output
    assert "Traceback" not in output, output
    assert "no store in" not in output
    assert not list(data_dir.glob("**/hs_err_pid*.log"))


def test_serve_that_cannot_reach_its_graph_says_so_in_one_line(tmp_path: Path) -> None:
    # As every other command does: no traceback of the server's startup.
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("HIPPOGRAPH_GRAPH__")},
        "HIPPOGRAPH_GRAPH__SERVER": "neo4j",
        "HIPPOGRAPH_GRAPH__EMBEDDED": "false",
        "HIPPOGRAPH_GRAPH__URI": f"bolt://127.0.0.1:{free_port()}",
        "HIPPOGRAPH_GRAPH__PASSWORD": "not-the-password",
        "HIPPOGRAPH_API__PORT": str(free_port()),
    }
    done = subprocess.run(
        [str(HIPPOGRAPH), "serve"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("hippograph: ")]
    assert errors, done.stderr
    assert errors[0].startswith("hippograph: the graph database cannot be reached: ")


@STOP_SIGNALS
def test_a_stop_while_serve_starts_lets_it_start_then_stops_it_cleanly(
    graph_db: TestDatabase, tmp_path: Path, sig: signal.Signals
) -> None:
    # Before uvicorn's own handlers are in place (the model and the graph
    # start first): no traceback, no store killed halfway through its start.
    data_dir, port, process = _serve(graph_db, tmp_path)
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if "starting HippoGraph on" in line:
            break
    time.sleep(0.5)
    code, output, _ = _stop(process, sig)
    output = "".join(lines) + output
    assert code == 0, output
    assert f"stopped by {sig.name} before serving" in output
    assert "Traceback" not in output
    # The store it made is whole: the next start answers.
    again = _start(graph_db, data_dir, port)
    _first_answer(again, port, data_dir / "admin.key", timeout=60)
    _stop(again, signal.SIGTERM)
