"""A soak: mixed tenants for minutes on loopback; errors, latency drift and memory growth.

On ``hippograph serve`` (``--graph``: the embedded ArcadeDB, or a Neo4j
release with a ``hippograph worker`` process and Redis, see
:mod:`bench.stack`), ``--tenants`` agents, each with its own user and an API
key limited to it, run for ``--seconds`` (10 minutes by default). Each one
keeps a ``memoryAdded`` subscription open on a websocket for the whole run,
and loops over a mix: search (HYBRID, 45%), add a memory (15%), memorize
2-4 turns now (15%), memorize 20 turns as a job (5%, not waited for), and
the MCP ``search`` tool in a session of its own (20%).

Reported: requests and errors by kind (HTTP status, GraphQL code, error
payload, a subscription that dropped); p95 per operation in the first and
the last ``--window`` seconds after a warm-up; resident memory of serve
(and the worker) after the warm-up and at the end; subscription events
received; how the queued jobs ended (a failed job is an error). Issue
32's figures: no error but 429, the last window's p95 within 1.5x the
first, RSS growth under 10% after warm-up.

    python -m bench.soak [--graph arcadedb|neo4j-5.26|neo4j-2026] [--seconds 600] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench import graphs
from bench.common import (
    ADMIN_HEADERS,
    Report,
    document,
    locomo_questions,
    machine,
    percentiles,
    report_cli,
)
from bench.pressure import dev_turns
from bench.stack import (
    JOB,
    MEMORIZE,
    SEARCH,
    Stack,
    Tenant,
    graphql_data,
    memory_added,
    new_tenants,
    running,
)

ADD = document("BenchAddMemory")
MIX = (("search", 0.45), ("add", 0.15), ("memorize", 0.15), ("memorize_job", 0.05), ("mcp", 0.2))


@dataclass
class Tally:
    """What the run saw, by operation and by when."""

    samples: dict[str, list[tuple[float, float]]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    events: int = 0
    jobs: list[str] = field(default_factory=list)

    def record(self, operation: str, at: float, ms: float, error: str) -> None:
        """One request: when it started (s into the run), how long it took, what went wrong."""
        self.samples[operation].append((at, ms))
        if error:
            self.errors[f"{operation}: {error}"] += 1

    def window(self, start: float, end: float) -> dict[str, float]:
        """p95 per operation of the requests started in [start, end)."""
        return {
            op: percentiles([ms for at, ms in rows if start <= at < end])["p95"]
            for op, rows in sorted(self.samples.items())
            if any(start <= at < end for at, _ in rows)
        }


def _error(response: httpx.Response) -> str:
    """ "" for a good answer, else its kind: HTTP status, GraphQL code or error payload."""
    if response.status_code != 200:
        return f"HTTP {response.status_code}"
    body = response.json()
    if body.get("errors"):
        return str(body["errors"][0].get("extensions", {}).get("code", "GRAPHQL_ERROR"))
    for value in (body.get("data") or {}).values():
        kind = str(value.get("__typename", "")) if isinstance(value, dict) else ""
        if kind.endswith("Error"):
            return kind
    return ""


@contextlib.asynccontextmanager
async def _subscribed(stack: Stack, tenant: Tenant, tally: Tally) -> AsyncIterator[None]:
    """A ``memoryAdded`` subscription for the whole block, counting its events."""
    async with memory_added(stack.url, tenant.key, tenant.user) as ws:

        async def listen() -> None:
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "next" and not message["payload"].get("errors"):
                    tally.events += 1
                elif message["type"] != "ping":
                    tally.errors[f"subscription: {message['type']}"] += 1

        listener = asyncio.create_task(listen())
        try:
            yield
        finally:
            if listener.done() and not listener.cancelled():
                tally.errors["subscription: closed early"] += int(listener.exception() is None)
                if listener.exception() is not None:
                    tally.errors[f"subscription: {type(listener.exception()).__name__}"] += 1
            listener.cancel()


class McpSession:
    """MCP for one tenant: a session per tool call, each in a task of its own.

    The SDK's client runs its transport in a task group whose host is the
    task that opened it: a connection that breaks cancels that task. Opened
    inside its own task, a broken session is one counted error, and the
    tenant goes on.
    """

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self._url = url
        self._headers = headers

    async def search(self, user: str, query: str) -> str:
        """The ``search`` tool; "" if it answered, else what went wrong."""

        async def one() -> str:
            async with (
                httpx2.AsyncClient(headers=self._headers, timeout=120) as http,
                Client(streamable_http_client(self._url, http_client=http)) as client,
            ):
                result = await client.call_tool("search", {"user_id": user, "query": query})
                return "tool error" if result.is_error else ""

        try:
            return await asyncio.create_task(one())
        except BaseException as exc:  # the SDK's, anyio's and httpx2's errors, groups of them
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # this tenant itself is being stopped
            return f"MCP {type(exc).__name__}"


JOB_TURNS = 20  # messages in one memorize job


@dataclass(frozen=True)
class Traffic:
    """What the tenants say and ask: (speaker, text) turns and questions."""

    turns: list[tuple[str, str]]
    questions: list[str]

    def __post_init__(self) -> None:
        if len(self.turns) <= JOB_TURNS or not self.questions:
            raise ValueError(f"a soak needs more than {JOB_TURNS} turns and a question")

    @classmethod
    def dev(cls) -> Traffic:
        """The LoCoMo dev conversations' turns and questions (bench/data/)."""
        return cls(dev_turns(), locomo_questions())


async def _agent(
    stack: Stack,
    tenant: Tenant,
    traffic: Traffic,
    until: float,
    started: float,
    seed: int,
    tally: Tally,
) -> None:
    rng = random.Random(seed)
    turns, questions = traffic.turns, traffic.questions
    headers = {"Authorization": f"Bearer {tenant.key}"}
    mcp = McpSession(f"{stack.url}/mcp", headers)
    async with (
        httpx.AsyncClient(base_url=stack.url, headers=headers, timeout=120) as http,
        _subscribed(stack, tenant, tally),
    ):
        count = 0
        while time.monotonic() < until:
            count += 1
            operation = rng.choices([op for op, _ in MIX], [w for _, w in MIX])[0]
            at = time.monotonic()
            error = ""
            try:
                if operation == "mcp":
                    error = await mcp.search(tenant.user, rng.choice(questions))
                else:
                    query, variables = _request(operation, tenant, rng, turns, questions, count)
                    response = await http.post(
                        "/graphql", json={"query": query, "variables": variables}
                    )
                    error = _error(response)
                    if not error and operation == "memorize_job":
                        tally.jobs.append(response.json()["data"]["memorize"]["job"]["id"])
            except (httpx.HTTPError, OSError) as exc:
                error = type(exc).__name__
            tally.record(operation, at - started, (time.monotonic() - at) * 1000, error)


async def _job_outcomes(
    http: httpx.AsyncClient, job_ids: list[str], settle_s: float
) -> Counter[str]:
    """How the jobs the run queued ended, once they have settled (or ``settle_s`` is up)."""
    deadline = time.monotonic() + settle_s
    while True:
        statuses: Counter[str] = Counter()
        for job_id in job_ids:
            job = (await graphql_data(http, JOB, {"id": job_id}))["job"]
            statuses[str(job["status"])] += 1
        if set(statuses) <= {"SUCCEEDED", "FAILED"} or time.monotonic() > deadline:
            return statuses
        await asyncio.sleep(1)


def _request(
    operation: str,
    tenant: Tenant,
    rng: random.Random,
    turns: list[tuple[str, str]],
    questions: list[str],
    count: int,
) -> tuple[str, dict[str, Any]]:
    if operation == "search":
        return SEARCH, {"u": tenant.user, "q": rng.choice(questions)}
    if operation == "add":
        return ADD, {"u": tenant.user, "c": f"{tenant.user} note {count}: {rng.choice(turns)[1]}"}
    size = rng.randint(2, 4) if operation == "memorize" else JOB_TURNS
    start = rng.randrange(len(turns) - size)
    messages = [
        {"speaker": speaker, "content": f"{text} ({tenant.user} {count})"}
        for speaker, text in turns[start : start + size]
    ]
    variables = {
        "u": tenant.user,
        "s": tenant.session,
        "m": messages,
        "async": operation == "memorize_job",
    }
    return MEMORIZE, variables


async def run(
    graph: str,
    tenants: int,
    seconds: float,
    warmup: float,
    window: float,
    seed: int,
    traffic: Traffic | None = None,
) -> dict[str, Any]:
    """The soak on a fresh service (on the dev conversations unless *traffic*); the report."""
    traffic = traffic or Traffic.dev()
    async with running(graph) as stack:
        async with httpx.AsyncClient(base_url=stack.url, headers=ADMIN_HEADERS, timeout=60) as http:
            agents = await new_tenants(http, tenants, "tenant", "soak")
        tally = Tally()
        started = time.monotonic()
        until = started + seconds

        async def rss_after_warmup() -> dict[str, float]:
            await asyncio.sleep(warmup)
            return stack.rss_mb()

        warm = asyncio.create_task(rss_after_warmup())
        await asyncio.gather(
            *(
                _agent(stack, agent, traffic, until, started, seed + i, tally)
                for i, agent in enumerate(agents)
            )
        )
        elapsed = time.monotonic() - started
        rss_start, rss_end = await warm, stack.rss_mb()
        async with httpx.AsyncClient(base_url=stack.url, headers=ADMIN_HEADERS, timeout=60) as http:
            jobs = await _job_outcomes(http, tally.jobs, settle_s=120)
        tally.errors.update(
            {f"memorize_job: {status}": n for status, n in jobs.items() if status == "FAILED"}
        )
    first = tally.window(warmup, warmup + window)
    last = tally.window(elapsed - window, elapsed)
    not_429 = {k: v for k, v in tally.errors.items() if "HTTP 429" not in k}
    return {
        "graph": graph,
        "tenants": tenants,
        "seconds": round(elapsed, 1),
        "requests": sum(len(v) for v in tally.samples.values()),
        "by_operation": {op: len(v) for op, v in sorted(tally.samples.items())},
        "errors": dict(tally.errors.most_common()),
        "errors_not_429": sum(not_429.values()),
        "subscription_events": tally.events,
        "jobs": dict(jobs),
        "p95_first_window_ms": first,
        "p95_last_window_ms": last,
        "p95_drift": {
            op: round(last[op] / first[op], 2) for op in first if op in last and first[op]
        },
        "rss_after_warmup_mb": rss_start,
        "rss_end_mb": rss_end,
        "rss_growth": {
            name: round(rss_end[name] / rss_start[name] - 1, 3)
            for name in rss_start
            if rss_start[name]
        },
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    graphs.add_argument(parser)
    parser.add_argument("--tenants", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--warmup", type=float, default=60, help="seconds before the first window")
    parser.add_argument("--window", type=float, default=60, help="seconds in each p95 window")
    parser.add_argument("--seed", type=int, default=32)
    report_cli(parser, lambda a: measure(parser, a), show)


def measure(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Report:
    """The soak's report, once the options are known to fit together."""
    if args.seconds < args.warmup + 2 * args.window:
        parser.error("--seconds must cover the warm-up and two windows")
    return asyncio.run(
        run(args.graph, args.tenants, args.seconds, args.warmup, args.window, args.seed)
    )


def show(report: Report, args: argparse.Namespace) -> None:
    """Requests, errors, events, the p95 drift per operation, and memory."""
    head = f"{report['graph']}: {report['tenants']} tenants, {report['seconds']} s"
    print(f"{head}, {report['requests']} requests")
    print(f"  errors: {report['errors'] or 'none'} ({report['errors_not_429']} other than 429)")
    print(f"  subscription events: {report['subscription_events']}")
    for op, first in report["p95_first_window_ms"].items():
        last = report["p95_last_window_ms"].get(op)
        print(f"  {op:<13} p95 first {first:>8} ms  last {last} ms  x{report['p95_drift'].get(op)}")
    print(f"  RSS after warm-up {report['rss_after_warmup_mb']} MB, end {report['rss_end_mb']} MB")


if __name__ == "__main__":
    main()
