"""The service as a deployment runs it, for the benchmarks that talk to it over HTTP.

``hippograph serve`` on a loopback port and a fresh data directory (or one
the benchmark filled first). On the
embedded ArcadeDB, jobs run inside serve; on a Neo4j release (started by
:mod:`bench.graphs`) jobs go through a private ``redis-server`` to a
``hippograph worker`` process of their own, as the Neo4j deployment runs
them. Everything is stopped when the block ends, whatever happened in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from bench.common import ADMIN_KEY, document, serve_env
from bench.graphs import open_graph
from graph.embedded import free_port

HIPPOGRAPH = Path(sys.executable).parent / "hippograph"

# The operations of operations/bench.graphql that several of the benchmarks
# over HTTP send.
USER = document("BenchUser")
SESSION = document("BenchSession")
MEMORIZE = document("BenchMemorize")
JOB = document("BenchJob")
SEARCH = document("BenchSearch")


@dataclass
class Stack:
    """A running service: its URL and the processes whose memory is worth watching."""

    url: str
    graph: str
    processes: dict[str, int] = field(default_factory=dict)

    def rss_mb(self) -> dict[str, float]:
        """Resident memory of each process (MiB), read from /proc."""
        return {name: _rss_mb(pid) for name, pid in self.processes.items()}


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def redis_answers(port: int) -> bool:
    """Whether a Redis on loopback ``port`` answers PING."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


@contextlib.contextmanager
def private_redis() -> Iterator[str]:
    """A ``redis-server`` of this run's own on a free loopback port, without persistence."""
    executable = shutil.which("redis-server")
    if executable is None:
        raise SystemExit("redis-server is not on PATH (make test installs it)")
    port = free_port()
    command = [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    process = subprocess.Popen(
        [*command, "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while not redis_answers(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def _wait_ready(base: str, exited: Callable[[], bool], timeout_s: float = 300) -> None:
    """Return once ``/readyz`` answers 200; fail if ``exited()`` or after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(base_url=base, timeout=5) as http:
        while True:
            if exited() or time.monotonic() > deadline:
                raise RuntimeError("hippograph serve did not become ready")
            try:
                if (await http.get("/readyz")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.2)


async def graphql_data(
    http: httpx.AsyncClient, query: str, variables: dict[str, Any]
) -> dict[str, Any]:
    """The ``data`` of one operation over ``http`` (which carries the key); an error raises."""
    response = await http.post("/graphql", json={"query": query, "variables": variables})
    body = response.json()
    if response.status_code != 200 or body.get("errors"):
        raise RuntimeError(f"{response.status_code}: {body}")
    data: dict[str, Any] = body["data"]
    return data


@dataclass(frozen=True)
class Tenant:
    """One agent of a benchmark: its user, a key limited to that user, and a session."""

    user: str
    key: str
    session: str


async def new_tenants(http: httpx.AsyncClient, count: int, prefix: str, title: str) -> list[Tenant]:
    """``count`` agents, users ``{prefix}00`` and on, each with its own key and a session
    called ``title``; made with the admin key that ``http`` carries."""
    made = []
    for index in range(count):
        user = f"{prefix}{index:02d}"
        variables = {"id": user, "name": user, "title": title}
        data = await graphql_data(http, document("BenchTenant"), variables)
        key, session = data["createApiKey"]["key"], data["createSession"]["session"]["id"]
        made.append(Tenant(user, key, session))
    return made


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 60)
        except TimeoutError:
            process.kill()
            await process.wait()


@contextlib.asynccontextmanager
async def running(
    graph: str,
    extra_env: dict[str, str] | None = None,
    *,
    data: Path | None = None,
    rate_limited: bool = False,
) -> AsyncIterator[Stack]:
    """The service on ``graph`` (see the module's docstring); yields it once it is ready.

    ``data``: a data directory a benchmark filled already (default: a fresh
    one). ``rate_limited``: keep the per-key rate limit a deployment has, for
    the benchmarks whose clients meet it; the others measure the service,
    not one key's limit.
    """
    with contextlib.ExitStack() as stack:
        if data is None:
            fresh = tempfile.TemporaryDirectory(prefix=f"hippograph-{graph}-")
            data = Path(stack.enter_context(fresh))
        opened = stack.enter_context(open_graph(graph, data))
        port = free_port()
        env = serve_env(data, port, ADMIN_KEY) | opened.env
        if not rate_limited:
            env |= {"HIPPOGRAPH_API__RATE_LIMIT_PER_S": "0"}
        env |= dict(extra_env or {})
        if graph != "arcadedb":
            env |= {
                "HIPPOGRAPH_REDIS__URL": stack.enter_context(private_redis()),
                "HIPPOGRAPH_JOBS__MODE": "arq",
            }
        started: dict[str, asyncio.subprocess.Process] = {}
        try:
            started["serve"] = await asyncio.create_subprocess_exec(
                str(HIPPOGRAPH), "serve", env=env, stdout=asyncio.subprocess.DEVNULL
            )
            if graph != "arcadedb":
                started["worker"] = await asyncio.create_subprocess_exec(
                    str(HIPPOGRAPH),
                    "worker",
                    env=env | {"HIPPOGRAPH_JOBS__METRICS_PORT": "0"},
                    stdout=asyncio.subprocess.DEVNULL,
                )
            base = f"http://127.0.0.1:{port}"
            serve = started["serve"]
            await _wait_ready(base, lambda: serve.returncode is not None)
            yield Stack(base, graph, {name: p.pid for name, p in started.items()})
        finally:
            for process in started.values():
                await _stop(process)


@contextlib.asynccontextmanager
async def memory_added(base: str, key: str, user: str) -> AsyncIterator[ClientConnection]:
    """A websocket to the service at ``base`` whose ``memoryAdded`` subscription for
    ``user`` is sent, once the connection (with ``key``) is acknowledged."""
    url = base.replace("http://", "ws://") + "/graphql"
    async with connect(url, subprotocols=[Subprotocol("graphql-transport-ws")]) as ws:
        init = {"type": "connection_init", "payload": {"authorization": f"Bearer {key}"}}
        await ws.send(json.dumps(init))
        if json.loads(await ws.recv())["type"] != "connection_ack":
            raise RuntimeError("the websocket was not acknowledged")
        subscribe = {"query": document("BenchMemoryAdded"), "variables": {"u": user}}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": subscribe}))
        yield ws
