"""Another tenant's writes never fail my job: a large memorize under many small writes.

A black-box probe saw ann's 150-message memorize fail in 7 of 9 runs on
embedded ArcadeDB while bob added memories from two threads: its one large
transaction lost every race on the buckets all tenants share until the
graph's retry budget ran out, and the job failed for good. Here the same
load runs against the real HTTP stack, run after run.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import neo4j
import pytest

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from tests.api.conftest import ADD_MEMORY, ADMIN_KEY, CREATE_SESSION, CREATE_USER, make_settings
from tests.api.test_memorize import MEMORIZE
from tests.graphql import bearer, data_of, payload
from tests.graphs import TestDatabase
from tests.serving import serving

# Ten 150-message memorize jobs under load. Twenty took 132 s on two idle
# cores and over 300 s beside the rest of `make test`. Ten are enough: the
# probe saw 7 runs of 9 fail, so ten passing by chance is (2/9)**10, 3e-7.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

RUNS = 10
MESSAGES = 150
TOPICS = ["climbing", "the garden", "a job interview", "a trip to Porto", "the new puppy"]
JOB = "query($id: ID!) { job(id: $id) { status error attempts } }"
UNITS_PER_MESSAGE = """
MATCH (m:Message {session_id: $session})
OPTIONAL MATCH (u:MemUnit)-[:DERIVED_FROM]->(m)
RETURN m.id AS id, count(u) AS units"""


def _ok(http: httpx.Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    return data_of(http.post("/graphql", json=payload(query, variables), headers=bearer(ADMIN_KEY)))


def _turns(run: int) -> list[dict[str, str]]:
    return [
        {
            "speaker": "Ann",
            "content": f"Run {run}, turn {i}: I keep thinking about {TOPICS[i // 30]}, "
            f"detail number {i} of it.",
        }
        for i in range(MESSAGES)
    ]


def _bob_writes(url: str, stop: threading.Event, written: list[int]) -> None:
    with httpx.Client(base_url=url, timeout=60) as http:
        n = 0
        while not stop.is_set():
            n += 1
            text = f"Bob note {threading.get_ident()}-{n}: bought more coffee beans"
            _ok(http, ADD_MEMORY, {"input": {"userId": "bob", "content": text}})
            written.append(1)


def _wait(http: httpx.Client, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while True:
        job: dict[str, Any] = _ok(http, JOB, {"id": job_id})["job"]
        if job["status"] in {"SUCCEEDED", "FAILED"}:
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.2)


def test_another_tenants_writes_never_fail_a_memorize_job(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    settings = make_settings(graph_db, tmp_path, rate_limit_per_s=0)
    app = create_app(settings, embedder=embedder, **graph_db.start)
    with serving(app) as url, httpx.Client(base_url=url, timeout=60) as http:
        for user, name in (("ann", "Ann"), ("bob", "Bob")):
            _ok(http, CREATE_USER, {"id": user, "name": name})
        stop, written = threading.Event(), list[int]()
        load = [
            threading.Thread(target=_bob_writes, args=(url, stop, written), daemon=True)
            for _ in range(2)
        ]
        for thread in load:
            thread.start()
        outcomes = []
        try:
            for run in range(RUNS):
                session = _ok(http, CREATE_SESSION, {"userId": "ann"})["createSession"]["session"]
                payload = {
                    "userIds": ["ann"],
                    "sessionId": session["id"],
                    "messages": _turns(run),
                    "async": True,
                }
                queued = _ok(http, MEMORIZE, {"input": payload})["memorize"]
                outcomes.append((_wait(http, queued["job"]["id"]), session["id"]))
        finally:
            stop.set()
            for thread in load:
                thread.join(timeout=60)
        assert len(written) > RUNS  # bob's writes ran all along
        failed = [job for job, _ in outcomes if job["status"] != "SUCCEEDED"]
        assert failed == [], failed
    auth = (graph_db.user, graph_db.password)
    with neo4j.GraphDatabase.driver(graph_db.bolt_uri, auth=auth) as driver:
        for _, session_id in outcomes:
            records, _, _ = driver.execute_query(
                UNITS_PER_MESSAGE, {"session": session_id}, database_=graph_db.name
            )
            units = [int(r["units"]) for r in records]
            # every message in exactly one MemUnit: nothing lost, nothing twice
            assert len(units) == MESSAGES
            assert set(units) == {1}, units
