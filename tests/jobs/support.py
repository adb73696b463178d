"""Helpers of the job tests: GraphQL, burst workers, Redis queue sizes, worker processes."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from arq.worker import Worker
from redis.asyncio import Redis

from hippograph.clock import utc_now
from hippograph.ids import IdKind, new_id
from hippograph.jobs import Job
from hippograph.models import IndexedText, Memory, MemoryKind, Sources
from hippograph.reflection import ReflectionRequest, offline_summary, one_per_theme, themes
from hippograph.runtime import Runtime
from hippograph.server.app import create_app
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.reflection import reflection_rules
from hippograph.settings import Settings
from hippograph.text import search_text as text_tokens
from jobs.worker import build_worker
from tests.api.conftest import ADMIN_KEY
from tests.graphql import bearer, data_of, payload
from tests.graphs import TestDatabase

MEMORIZE = """
mutation($input: MemorizeInput!) {
  memorize(input: $input) {
    __typename
    ... on Memorized { created counts { messages } job { id status } }
    ... on Error { message code }
  }
}"""

JOB = """
query($id: ID!) {
  job(id: $id) { id status attempts error counts { messages memunits memories } }
}"""

SEARCH = """
query($q: String!) { search(userId: "caro", query: $q) { hits { memory { content } } } }
"""

CONVERSATION = [
    ("Caroline", "Hey Mel! Good to see you!"),
    ("Melanie", "Hi Caroline! How have you been lately?"),
    ("Caroline", "I went to a LGBTQ support group yesterday and everyone was welcoming."),
    ("Caroline", "My name is Caroline Smith and I live in Boston."),
    ("Melanie", "That is wonderful. I painted a sunrise over the lake last week."),
    ("Caroline", "I love painting too! My favourite colour is green."),
]


def memorize_input(session_id: str, *, run_async: bool = True) -> dict[str, Any]:
    """The memorize input of :data:`CONVERSATION` for user ``caro``."""
    messages = [
        {
            "speaker": speaker,
            "content": content,
            "ts": f"2023-05-08T13:5{i}:00+00:00",
            "clientId": f"c{i}",
        }
        for i, (speaker, content) in enumerate(CONVERSATION)
    ]
    return {"userIds": ["caro"], "sessionId": session_id, "messages": messages, "async": run_async}


async def caro_session(runtime: Runtime) -> str:
    """User ``caro`` (Caroline) with a new session of hers; the session's id."""
    await runtime.services.users.create_user(SETTINGS_ADMIN, "caro", "Caroline")
    return (await runtime.services.users.create_session(SETTINGS_ADMIN, "caro", "chat")).id


async def submit_memorize(runtime: Runtime, session_id: str) -> str:
    """Memorize :data:`CONVERSATION` into ``session_id`` through the API, queued; the job's id."""
    async with graphql(runtime) as api:
        queued = (await api.ok(MEMORIZE, {"input": memorize_input(session_id)}))["memorize"]
    job_id: str = queued["job"]["id"]
    return job_id


class GraphQL:
    """The API of a running runtime, over ASGI in this event loop, with the admin key."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def ok(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The ``data`` of an operation that must answer without GraphQL errors."""
        return data_of(
            await self.client.post(
                "/graphql", json=payload(query, variables), headers=bearer(ADMIN_KEY)
            )
        )


@asynccontextmanager
async def graphql(runtime: Runtime) -> AsyncIterator[GraphQL]:
    """A client of the app over ``runtime`` (the test owns the runtime, so no lifespan)."""
    app = create_app(runtime=runtime)
    app.state.runtime = runtime  # what the lifespan would have set
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield GraphQL(client)


async def run_burst_worker(settings: Settings, runtime: Runtime) -> Worker:
    """Run every job now on the queue with an arq worker in this event loop, then close it."""
    worker = build_worker(settings, runtime=runtime, burst=True, handle_signals=False)
    try:
        await worker.main()
    finally:
        await close_worker(worker)
    return worker


async def run_worker_until_finished(
    settings: Settings, runtime: Runtime, job_id: str
) -> tuple[Job, float]:
    """Run a worker in this loop until the job has finished; the job and the seconds taken."""
    started = time.monotonic()
    worker = build_worker(settings, runtime=runtime, handle_signals=False)
    running = asyncio.create_task(worker.async_run())
    try:
        while time.monotonic() - started < 60:
            job = (await runtime.connection.store.jobs.get_jobs([job_id]))[job_id]
            if job.finished:
                break
            await asyncio.sleep(0.2)
    finally:
        await close_worker(worker)
        await asyncio.gather(running, return_exceptions=True)
    return job, time.monotonic() - started


async def close_worker(worker: Worker) -> None:
    """Stop an in-loop arq worker (its running jobs are cancelled) and close its pool."""
    with warnings.catch_warnings():
        # arq 0.28 closes its pool with redis-py's deprecated close().
        warnings.filterwarnings("ignore", "Call to deprecated close", DeprecationWarning)
        await worker.close()


@asynccontextmanager
async def arq_redis(settings: Settings) -> AsyncIterator[Redis]:
    """A client of the settings' Redis (arq's queue and keys), closed after."""
    client = Redis.from_url(settings.redis.url)
    try:
        yield client
    finally:
        await client.aclose()


async def queued_in_redis(settings: Settings) -> int:
    """How many arq jobs wait on the settings' queue."""
    async with arq_redis(settings) as client:
        return int(await client.zcard(settings.jobs.queue))


# --- Reflection under workers: facts to reflect on, the expected themes, what the graph holds.

HIPPOGRAPH = Path(sys.executable).parent / "hippograph"

_SUBJECTS = [
    "the cello",
    "rock climbing",
    "espresso",
    "vegetable gardening",
    "chess openings",
    "sourdough bread",
    "marathon running",
    "astronomy",
    "pottery",
    "sailing",
    "jazz piano",
    "knitting",
    "film photography",
    "birdwatching",
    "skiing",
    "poetry",
    "woodworking",
    "tango",
    "origami",
    "beekeeping",
]
_PATTERNS = [
    "Ann loves {}",
    "Ann spends every weekend on {}",
    "Ann bought new gear for {}",
    "Ann's sister taught her {}",
    "Ann wants to get better at {}",
    "Ann reads books about {}",
    "Ann joined a club for {}",
    "Ann finds {} relaxing",
    "Ann started {} as a child",
    "Ann watches videos about {}",
]
_BASE: list[tuple[str, list[float]]] = []


async def seed_facts(runtime: Runtime, user_id: str, count: int, seed: int = 7) -> list[str]:
    """``count`` semantic facts of ``user_id`` on many themes, with real embeddings; their ids.

    A few hundred distinct texts are embedded once per test run and reused
    with a little noise, so thousands of facts cost one bulk write.
    """
    if not _BASE:
        texts = [p.format(s) for s in _SUBJECTS for p in _PATTERNS]
        _BASE.extend(zip(texts, await runtime.embedder.embed(texts), strict=True))
    rng = np.random.default_rng(seed)
    created = utc_now() - timedelta(hours=2)
    items: list[tuple[Memory, IndexedText, Sources]] = []
    for i in range(count):
        text, base = _BASE[int(rng.integers(len(_BASE)))]
        vector = np.asarray(base, dtype=np.float32) + rng.normal(0, 0.01, len(base))
        content = f"{text} ({i})"
        memory = Memory(
            id=new_id(IdKind.MEMORY, created),
            user_id=user_id,
            kind=MemoryKind.SEMANTIC,
            content=content,
            importance=round(float(rng.uniform(0.3, 0.9)), 2),
            created_at=created,
            last_accessed_at=created,
        )
        indexed = IndexedText(
            embedding=(vector / np.linalg.norm(vector)).tolist(),
            search_text=text_tokens(content),
        )
        items.append((memory, indexed, Sources()))
    for start in range(0, count, 1000):
        await runtime.connection.store.memories.add_many(items[start : start + 1000])
    return [memory.id for memory, _, _ in items]


async def expected_themes(runtime: Runtime, user_id: str) -> set[frozenset[str]]:
    """The fact groups one clean reflect run would cover now: ``hippograph.reflection.themes``,
    then one group per theme the offline summaries name (``one_per_theme``)."""
    settings = runtime.settings.reflection
    rules = reflection_rules(settings, runtime.embedder.scale)
    pending = await runtime.connection.store.reflection.pending(
        user_id, settings.kinds, utc_now(), utc_now(), settings.max_pending
    )
    user = await runtime.services.users.get_user(SETTINGS_ADMIN, user_id)
    name = user.name if user is not None else user_id
    ordered = [sorted(g, key=lambda f: (-f.importance, f.id)) for g in themes(pending, rules)]
    topics = [
        offline_summary(ReflectionRequest(user_name=name, facts=[f.told_of(name) for f in g])).topic
        for g in ordered
    ]
    return {
        frozenset(f.id for f in g)
        for g, _ in one_per_theme(ordered, topics, pending, rules.max_facts_per_reflection)
    }


@dataclass(frozen=True)
class ReflectionState:
    """What the graph holds about a user's reflections over the given facts."""

    reflections: int  # every reflection of the user
    groups: dict[str, frozenset[str]]  # reflection id -> the given facts it summarises
    summarisers: dict[str, int]  # fact id -> how many SUMMARIZES edges reach it
    consolidated: frozenset[str]  # the given facts marked consolidated

    def assert_consistent(self) -> None:
        """No half state: a fact is summarised at most once, and consolidated iff summarised."""
        twice = {fact: n for fact, n in self.summarisers.items() if n > 1}
        assert not twice, f"facts summarised more than once: {twice}"
        summarised = {fact for fact, n in self.summarisers.items() if n}
        assert summarised == self.consolidated, (
            f"{len(summarised - self.consolidated)} summarised facts not consolidated, "
            f"{len(self.consolidated - summarised)} consolidated facts not summarised"
        )


async def reflection_state(runtime: Runtime, user_id: str, fact_ids: list[str]) -> ReflectionState:
    """The committed state of ``user_id``'s reflections over ``fact_ids``."""
    by = await runtime.services.memories.summaries(SETTINGS_ADMIN, fact_ids, by=True)
    groups: dict[str, set[str]] = {}
    for fact, reflections in by.items():
        for reflection in reflections:
            groups.setdefault(reflection.id, set()).add(fact)
    memories = await runtime.connection.store.memories.get_memories(fact_ids)
    total = await runtime.connection.store.memories.count(user_id)
    return ReflectionState(
        reflections=total - len(fact_ids),
        groups={rid: frozenset(facts) for rid, facts in groups.items()},
        summarisers={fact: len(reflections) for fact, reflections in by.items()},
        consolidated=frozenset(m.id for m in memories.values() if m.consolidated),
    )


def worker_env(
    settings: Settings,
    graph_db: TestDatabase,
    data: Path,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """A worker process's environment: the test's database reached as a server, its Redis."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIPPOGRAPH_")}
    return (
        env
        | graph_db.environment(data)
        | {
            "HIPPOGRAPH_REDIS__URL": settings.redis.url,
            "HIPPOGRAPH_JOBS__MODE": "arq",
            "HIPPOGRAPH_JOBS__QUEUE": settings.jobs.queue,
            "HIPPOGRAPH_JOBS__POLL_DELAY_S": "0.05",
            # Several workers run at once here: none serves metrics.
            "HIPPOGRAPH_JOBS__METRICS_PORT": "0",
            "HIPPOGRAPH_JOBS__TIMEOUT_S": str(settings.jobs.timeout_s),
            "HIPPOGRAPH_JOBS__LEASE_S": str(settings.jobs.lease_s),
            "HIPPOGRAPH_REFLECTION__SWEEP_INTERVAL_S": str(settings.reflection.sweep_interval_s),
            "HIPPOGRAPH_API__ADMIN_KEY": ADMIN_KEY,
            "HIPPOGRAPH_EMBEDDING__CACHE_DIR": os.environ["HIPPOGRAPH_EMBEDDING__CACHE_DIR"],
        }
        | dict(extra or {})
    )


class WorkerProcess:
    """A ``hippograph worker`` child process; its stderr goes to a file (read on failure)."""

    def __init__(self, process: asyncio.subprocess.Process, log: Path) -> None:
        self.process = process
        self.log = log

    @classmethod
    async def start(
        cls, command: Sequence[str], env: Mapping[str, str], log: Path
    ) -> WorkerProcess:
        """Start ``command`` with ``env`` in the log's directory (no ``.env`` there)."""
        with log.open("wb") as sink:  # the child keeps its own copy of the descriptor
            process = await asyncio.create_subprocess_exec(
                *command,
                env=dict(env),
                cwd=log.parent,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=sink,
            )
        return cls(process, log)

    def output(self) -> str:
        """What it has logged so far."""
        return self.log.read_text(errors="replace")

    def running(self) -> bool:
        """Whether it has not exited."""
        return self.process.returncode is None

    async def kill(self) -> int:
        """SIGKILL it (no clean-up of any kind) and reap it; its return code."""
        if self.running():
            self.process.kill()
        return await self.process.wait()

    async def exited(self, within: float) -> int:
        """Its return code once it exits by itself (killed, and a failure, after ``within`` s)."""
        try:
            return await asyncio.wait_for(self.process.wait(), within)
        except TimeoutError:
            await self.kill()
            raise AssertionError(
                f"the worker did not exit in {within} s:\n{self.output()[-4000:]}"
            ) from None

    async def stop(self) -> None:
        """SIGTERM (arq's graceful stop), then SIGKILL after a while; idempotent."""
        if not self.running():
            await self.process.wait()
            return
        self.process.terminate()
        try:
            await asyncio.wait_for(self.process.wait(), 15)
        except TimeoutError:
            await self.kill()


async def wait_until(
    check: Callable[[], Awaitable[bool]],
    what: str,
    workers: Sequence[WorkerProcess],
    within: float = 60,
) -> None:
    """Poll ``check`` until it holds; fail early, with their logs, if a worker exits."""
    deadline = time.monotonic() + within
    while not await check():
        for worker in workers:
            if not worker.running():
                raise AssertionError(
                    f"a worker exited ({worker.process.returncode}) while waiting for {what}:\n"
                    f"{worker.output()[-4000:]}"
                )
        if time.monotonic() > deadline:
            logs = "\n---\n".join(w.output()[-2000:] for w in workers)
            raise AssertionError(f"timed out after {within} s waiting for {what}:\n{logs}")
        await asyncio.sleep(0.05)
