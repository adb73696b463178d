"""The deployed topology, as processes on loopback: what `docker compose up` runs.

No Docker engine runs here, so this starts the four services of
docker-compose.yml as processes: Neo4j (the launcher, on a store it keeps),
Redis (`redis-server` with the file's options), the API (`hippograph serve`
in arq mode) and a worker (`hippograph worker`), with the commands and the
variable names the file gives them. It drives them over HTTP the way a
client does, kills a worker in the middle of a job, and stops and restarts
Neo4j under the running API. Then it reads docker-compose.yml and checks
that the file describes what ran, so the two cannot drift apart.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import pytest
import yaml

from graph.embedded import free_port
from neo4j_launcher.build import RELEASES
from neo4j_launcher.server import Neo4jServer
from tests.graphs import SHORT_LIVED_JVM, GraphBackend
from tests.jobs.private_redis import PrivateRedis
from tests.jobs.support import JOB, MEMORIZE

pytestmark = [
    pytest.mark.slow,  # Redis, the API and workers as child processes
    pytest.mark.every_server("the deployment end to end on each server (compose deploys Neo4j)"),
]

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
HIPPOGRAPH = Path(sys.executable).parent / "hippograph"
ADMIN_KEY = "hg_topology-admin-key-for-the-test"
# What only a test sets: this machine's paths, and a lease short enough that
# a killed worker's job is taken over early in the test (the default is 30 s).
TEST_ONLY = {
    "HIPPOGRAPH_GRAPH__DATA_DIR",
    "HIPPOGRAPH_EMBEDDING__CACHE_DIR",
    "HIPPOGRAPH_JOBS__LEASE_S",
}
LEASE_S = 15
# arq would hand a dead worker's job out again only once its claim expires:
# the job's time limit (600 s by default) plus jobs/worker.py's grace and
# arq's own 10 s. The workers' lease sweep delivers it about one lease after
# the kill, so a job done within this time was taken over by the sweep.
TAKEOVER_S = 300

SEARCH = """
query($q: String!) {
  search(userId: "caro", query: $q, topK: 5) { hits { memory { id content } } }
}"""
PROVENANCE = """
query($id: ID!) {
  provenance(id: $id, depth: 4, direction: DOWN) { nodes { __typename id } edges { type } }
}"""
REFLECT = """
mutation { reflect(userId: "caro", force: true) {
  __typename ... on ReflectQueued { job { id } } ... on Error { message code } } }"""
FORGET = """
mutation { forget(input: {userId: "caro", dryRun: true}) {
  __typename ... on ForgetReport { counts { scanned changed } } ... on Error { message } } }"""

PLACES = ["Lisbon", "the lake", "the bakery", "the climbing gym", "the museum", "Porto"]
PEOPLE = ["my sister", "Melanie", "an old friend", "my neighbour", "the kids"]
TOPICS = ["painting", "a new job", "pottery", "running a charity race", "adopting a dog"]


def conversation(count: int, offset: int = 0) -> list[dict[str, str]]:
    """``count`` distinct turns of a chat (client ids from ``offset``)."""
    turns = []
    for i in range(offset, offset + count):
        text = (
            f"On day {i} I went to {PLACES[i % len(PLACES)]} with {PEOPLE[i % len(PEOPLE)]} "
            f"and we talked about {TOPICS[i % len(TOPICS)]} for {i % 7 + 1} hours."
        )
        day, minute = divmod(i, 60)
        ts = f"2024-05-{day % 28 + 1:02d}T10:{minute:02d}:00Z"
        turns.append({"speaker": "Caroline", "content": text, "clientId": f"m{i}", "ts": ts})
    return turns


@dataclass
class Process:
    """A child process and its log file."""

    popen: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        """Its log so far (the end of it)."""
        return self.log.read_text(errors="replace")[-4000:]

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Signal it and reap it (killed after 30 s)."""
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
        try:
            self.popen.wait(30)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()


@dataclass
class Topology:
    """The four services, started as docker-compose.yml describes them."""

    tmp: Path
    neo4j: Neo4jServer
    redis: PrivateRedis
    redis_options: list[str]
    env: dict[str, str] = field(default_factory=dict)
    api: Process | None = None
    api_command: list[str] = field(default_factory=list)
    api_port: int = 0
    workers: list[Process] = field(default_factory=list)
    worker_command: list[str] = field(default_factory=list)
    worker_env: dict[str, str] = field(default_factory=dict)
    metrics_port: int = 0

    def _spawn(self, command: list[str], env: dict[str, str], name: str) -> Process:
        log = self.tmp / f"{name}.log"
        with log.open("wb") as sink:
            popen = subprocess.Popen(
                command,
                env={**os.environ, **env},
                cwd=self.tmp,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        return Process(popen, log)

    def start_api(self) -> None:
        """`hippograph serve` in arq mode on a free loopback port."""
        self.api_port = free_port()
        self.api_command = [
            str(HIPPOGRAPH), "serve", "--host", "127.0.0.1", "--port", str(self.api_port)
        ]  # fmt: skip
        self.api = self._spawn(self.api_command, self.env, "api")

    def start_worker(self) -> Process:
        """One more `hippograph worker`."""
        self.worker_command = [str(HIPPOGRAPH), "worker"]
        self.metrics_port = free_port()
        self.worker_env = self.env | {
            "HIPPOGRAPH_API__HOST": "127.0.0.1",
            "HIPPOGRAPH_JOBS__METRICS_PORT": str(self.metrics_port),
        }
        worker = self._spawn(self.worker_command, self.worker_env, f"worker{len(self.workers)}")
        self.workers.append(worker)
        return worker

    def logs(self) -> str:
        """Every service's log tail, for a failure message."""
        parts = [f"--- neo4j\n{self.neo4j.log_path.read_text(errors='replace')[-2000:]}"]
        if self.api:
            parts.append(f"--- api\n{self.api.output()}")
        parts += [f"--- worker {i}\n{w.output()}" for i, w in enumerate(self.workers)]
        return "\n".join(parts)

    def stop(self) -> None:
        """Everything, in the reverse of the order it started."""
        for worker in self.workers:
            worker.stop()
        if self.api:
            self.api.stop()
        self.redis.stop()
        self.neo4j.stop()


@pytest.fixture
def client(topology: Topology) -> Iterator[Client]:
    """A client of the topology's API (its connections closed afterwards)."""
    with Client(topology) as started:
        yield started


@pytest.fixture
def topology(graph_backend: GraphBackend, tmp_path: Path) -> Iterator[Topology]:
    """Neo4j, Redis, the API and one worker, all on loopback."""
    # A store the test keeps and a fixed port: Neo4j is restarted on both.
    neo4j = Neo4jServer(
        "5.26",
        store=tmp_path / "neo4j-store",
        port=free_port(),
        log_path=tmp_path / "neo4j.log",
        jvm_options=SHORT_LIVED_JVM,
    )
    redis_options = ["--appendonly", "yes"]  # docker-compose.yml's redis command
    redis = PrivateRedis([*redis_options, "--dir", str(tmp_path)])
    topology = Topology(tmp_path, neo4j, redis, redis_options)
    try:
        neo4j.start()
        redis.start()
        topology.env = {
            "HIPPOGRAPH_GRAPH__SERVER": "neo4j",
            "HIPPOGRAPH_GRAPH__URI": neo4j.uri,
            "HIPPOGRAPH_GRAPH__USER": neo4j.user,
            "HIPPOGRAPH_GRAPH__PASSWORD": neo4j.password,
            "HIPPOGRAPH_GRAPH__DATABASE": "neo4j",
            "HIPPOGRAPH_REDIS__URL": redis.url,
            "HIPPOGRAPH_JOBS__MODE": "arq",
            "HIPPOGRAPH_API__ADMIN_KEY": ADMIN_KEY,
            "HIPPOGRAPH_LOG_LEVEL": "info",
            "HIPPOGRAPH_GRAPH__DATA_DIR": str(tmp_path / "data"),
            "HIPPOGRAPH_EMBEDDING__CACHE_DIR": os.environ["HIPPOGRAPH_EMBEDDING__CACHE_DIR"],
            "HIPPOGRAPH_JOBS__LEASE_S": str(LEASE_S),
        }
        topology.start_api()
        topology.start_worker()
        yield topology
    finally:
        topology.stop()


class Client:
    """GraphQL over HTTP with the admin key, failing with the services' logs."""

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{topology.api_port}", timeout=30)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()

    def post(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON answer of one operation."""
        response = self.http.post(
            "/graphql",
            json={"query": query, "variables": variables or {}},
            headers={"Authorization": f"Bearer {ADMIN_KEY}"},
        )
        body: dict[str, Any] = response.json()
        return body

    def ok(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The data of an operation that must succeed."""
        body = self.post(query, variables)
        assert not body.get("errors"), f"{body}\n{self.topology.logs()}"
        data: dict[str, Any] = body["data"]
        return data

    def wait(self, what: str, check: Callable[[], bool], within: float) -> None:
        """Poll ``check`` until it holds, or fail with the logs."""
        deadline = time.monotonic() + within
        while not check():
            if time.monotonic() > deadline:
                pytest.fail(
                    f"timed out after {within} s waiting for {what}\n{self.topology.logs()}"
                )
            time.sleep(0.1)

    def ready(self) -> bool:
        """Whether /readyz answers 200."""
        try:
            return self.http.get("/readyz").status_code == 200
        except httpx.HTTPError:
            return False

    def job(self, job_id: str) -> dict[str, Any]:
        """A job's record."""
        job: dict[str, Any] = self.ok(JOB, {"id": job_id})["job"]
        return job

    def finished(self, job_id: str, within: float = 120) -> dict[str, Any]:
        """A job once it has succeeded (failing on a failed one)."""
        self.wait(
            f"job {job_id}", lambda: self.job(job_id)["status"] in {"SUCCEEDED", "FAILED"}, within
        )
        job = self.job(job_id)
        assert job["status"] == "SUCCEEDED", f"{job}\n{self.topology.logs()}"
        return job

    def memorize(self, session_id: str, messages: list[dict[str, str]]) -> str:
        """Queue a memorize job; its id."""
        data = self.ok(
            MEMORIZE,
            {
                "input": {
                    "userIds": ["caro"],
                    "sessionId": session_id,
                    "messages": messages,
                    "async": True,
                }
            },
        )["memorize"]
        assert data["__typename"] == "Memorized", data
        job_id: str = data["job"]["id"]
        return job_id


def _services_agree_with_compose(topology: Topology) -> None:
    """docker-compose.yml describes what this test started."""
    spec = yaml.safe_load(COMPOSE.read_text())
    services = spec["services"]
    assert set(services) == {"neo4j", "redis", "api", "worker"}

    neo4j = services["neo4j"]
    assert neo4j["image"] == f"neo4j:{RELEASES['5.26'].version}-community"
    assert topology.neo4j.version == RELEASES["5.26"].version
    # The image takes the password from NEO4J_AUTH only; any other NEO4J_*
    # variable must be a setting (NEO4J_server_...), or Neo4j refuses to start.
    neo4j_env = neo4j["environment"]
    assert neo4j_env["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD")
    assert all(k == "NEO4J_AUTH" or k.startswith("NEO4J_server_") for k in neo4j_env)

    assert services["redis"]["command"] == ["redis-server", *topology.redis_options]

    api, worker = services["api"], services["worker"]
    container_port = int(api["ports"][0].rsplit(":", 1)[1])
    assert api["command"] == [
        "hippograph",
        "serve",
        "--host",
        "0.0.0.0",
        "--port",
        str(container_port),
    ]
    assert topology.api_command == [
        str(HIPPOGRAPH), "serve", "--host", "127.0.0.1", "--port", str(topology.api_port)
    ]  # fmt: skip
    assert worker["command"] == ["hippograph", "worker"]
    assert topology.worker_command == [str(HIPPOGRAPH), "worker"]
    assert "/readyz" in " ".join(api["healthcheck"]["test"])
    assert f":{container_port}/" in " ".join(api["healthcheck"]["test"])

    api_env, worker_env = api["environment"], worker["environment"]
    assert set(api_env) | TEST_ONLY == set(topology.env)
    assert set(worker_env) | TEST_ONLY == set(topology.worker_env)
    metrics = worker_env["HIPPOGRAPH_JOBS__METRICS_PORT"]
    assert worker["expose"] == [metrics]
    assert f":{metrics}/metrics" in " ".join(worker["healthcheck"]["test"])
    # The services reach each other by the names of the others.
    graph = urlparse(api_env["HIPPOGRAPH_GRAPH__URI"])
    assert (graph.scheme, graph.hostname, graph.port) == ("bolt", "neo4j", 7687)
    queue = urlparse(api_env["HIPPOGRAPH_REDIS__URL"])
    assert (queue.hostname, queue.port) == ("redis", 6379)
    assert api_env["HIPPOGRAPH_JOBS__MODE"] == topology.env["HIPPOGRAPH_JOBS__MODE"] == "arq"


@pytest.mark.only_on("neo4j-5.26", "docker-compose.yml deploys Neo4j 5.26 LTS")
def test_the_compose_topology_serves_survives_a_killed_worker_and_a_neo4j_restart(
    topology: Topology, client: Client
) -> None:
    client.wait("the API to be ready", client.ready, within=120)
    assert topology.api is not None
    metrics = f"http://127.0.0.1:{topology.metrics_port}/metrics"
    client.wait("the worker's metrics", lambda: _answers(metrics), within=120)
    _services_agree_with_compose(topology)

    # A client's first day: a user, a conversation remembered by the worker,
    # a search, provenance down to the messages, a reflection, a forget dry run.
    client.ok('mutation { createUser(input: {id: "caro", name: "Caroline"}) { __typename } }')
    session = client.ok(
        'mutation { createSession(input: {userId: "caro", title: "chat"}) '
        "{ ... on SessionCreated { session { id } } } }"
    )["createSession"]["session"]["id"]
    first = client.finished(client.memorize(session, conversation(12)))
    assert first["counts"]["memories"] >= 4, first
    hits = client.ok(SEARCH, {"q": "pottery with my sister"})["search"]["hits"]
    assert hits, client.topology.logs()
    walked = client.ok(PROVENANCE, {"id": hits[0]["memory"]["id"]})["provenance"]
    assert "Message" in {n["__typename"] for n in walked["nodes"]}, walked
    reflect = client.ok(REFLECT)["reflect"]
    assert reflect["__typename"] == "ReflectQueued", reflect
    client.finished(reflect["job"]["id"])
    report = client.ok(FORGET)["forget"]
    assert report["__typename"] == "ForgetReport", report
    assert report["counts"]["scanned"] >= first["counts"]["memories"]

    # A worker killed in the middle of a job: another takes it over, once.
    long_job = client.memorize(session, conversation(150, offset=100))
    client.wait("the job to start", lambda: client.job(long_job)["status"] == "RUNNING", within=60)
    topology.workers[0].stop(signal.SIGKILL)
    topology.start_worker()
    done = client.finished(long_job, within=TAKEOVER_S)
    assert done["attempts"] == 2, done
    again = client.ok(
        MEMORIZE,
        {
            "input": {
                "userIds": ["caro"],
                "sessionId": session,
                "messages": conversation(150, offset=100),
            }
        },
    )["memorize"]
    assert again["created"] == 0, again  # every message and memory exists exactly once

    # Neo4j goes away under the running API and comes back on the same store.
    topology.neo4j.stop()
    started = time.monotonic()
    answer = client.post(SEARCH, {"q": "pottery"})
    codes = [e.get("extensions", {}).get("code") for e in answer.get("errors") or []]
    assert codes == ["UNAVAILABLE"], answer
    assert time.monotonic() - started < 20
    assert client.http.get("/readyz").status_code == 503
    assert client.http.get("/healthz").status_code == 200
    topology.neo4j.start()
    client.wait("the API to see Neo4j back", client.ready, within=60)
    assert client.ok(SEARCH, {"q": "pottery with my sister"})["search"]["hits"]
    assert topology.api.popen.poll() is None  # never restarted
    # The worker recovered too.
    later = client.finished(client.memorize(session, conversation(6, offset=400)))
    assert later["counts"]["memories"] >= 1, later


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
