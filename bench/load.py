"""A bounded load test on loopback: N clients mixing memorize, search and provenance.

Starts ``hippograph serve`` (uvicorn, embedded ArcadeDB, the real model) on a
fresh data directory, gives each client its own user and API key (as each
agent of a deployment would have), seeds each user with a few LoCoMo
conversation turns, then runs the clients for the given time. Each client
loops: 20% memorize (2–4 new turns, synchronous, through the whole pipeline),
60% search (a LoCoMo question, HYBRID), 20% provenance (depth 4, of a memory
its searches found). Reports requests/s, p50/p95/p99 per operation and every
error (HTTP status, GraphQL error or error payload).

    .venv/bin/python -m bench.load --clients 32 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections import Counter, defaultdict
from typing import Any

import httpx

from bench.common import (
    ADMIN_HEADERS,
    Report,
    document,
    locomo_questions,
    locomo_turn_texts,
    machine,
    percentiles,
    report_cli,
)
from bench.stack import MEMORIZE, SEARCH, new_tenants, running

PROVENANCE = document("BenchProvenance")


class Client:
    """One agent: its own key, user and session, and what it has found so far."""

    def __init__(self, http: httpx.AsyncClient, user: str, key: str, session: str) -> None:
        self.http = http
        self.user = user
        self.headers = {"Authorization": f"Bearer {key}"}
        self.session = session
        self.found: list[str] = []

    async def call(self, query: str, variables: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The answer's data and "" if it succeeded, else what went wrong."""
        response = await self.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=self.headers
        )
        if response.status_code != 200:
            return {}, f"HTTP {response.status_code}: {response.text[:120]}"
        body = response.json()
        if body.get("errors"):
            return {}, str(body["errors"][0].get("message"))[:160]
        data: dict[str, Any] = body["data"]
        for value in data.values():
            if isinstance(value, dict) and str(value.get("__typename", "")).endswith("Error"):
                return data, f"{value['__typename']}: {value.get('message')}"
        return data, ""


async def _setup(http: httpx.AsyncClient, clients: int, turns: list[str]) -> list[Client]:
    made = [
        Client(http, t.user, t.key, t.session)
        for t in await new_tenants(http, clients, "agent", "load")
    ]
    # A few turns each, so searches have something to find from the start.
    for index, client in enumerate(made):
        start = (index * 12) % (len(turns) - 12)
        _, error = await client.call(MEMORIZE, _messages(client, turns[start : start + 12]))
        if error:
            raise RuntimeError(f"seeding {client.user} failed: {error}")
    return made


def _messages(client: Client, texts: list[str]) -> dict[str, Any]:
    return {
        "u": client.user,
        "s": client.session,
        "m": [{"speaker": client.user, "content": t} for t in texts],
    }


async def _run_client(
    client: Client,
    until: float,
    turns: list[str],
    questions: list[str],
    rng: random.Random,
    samples: dict[str, list[float]],
    errors: Counter[str],
) -> None:
    while time.monotonic() < until:
        roll = rng.random()
        if roll < 0.2:
            operation = "memorize"
            start = rng.randrange(len(turns) - 4)
            query, variables = MEMORIZE, _messages(client, turns[start : start + rng.randint(2, 4)])
        elif roll < 0.8 or not client.found:
            operation = "search"
            query, variables = SEARCH, {"u": client.user, "q": rng.choice(questions)}
        else:
            operation = "provenance"
            query, variables = PROVENANCE, {"id": rng.choice(client.found)}
        started = time.perf_counter()
        try:
            data, error = await client.call(query, variables)
        except httpx.HTTPError as exc:
            data, error = {}, f"{type(exc).__name__}: {exc}"
        samples[operation].append((time.perf_counter() - started) * 1000)
        if error:
            errors[f"{operation}: {error}"] += 1
        elif operation == "search":
            client.found = [h["memory"]["id"] for h in data["search"]["hits"]][:5] or client.found


async def run(clients: int, seconds: float, seed: int) -> dict[str, Any]:
    """Start the service, set up ``clients`` agents, load it for ``seconds``; the report."""
    turns, questions = locomo_turn_texts(), locomo_questions()
    # The per-key rate limit stays on: each agent has its own key and meets it.
    async with running("arcadedb", rate_limited=True) as stack:
        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        # The admin key sets the agents up; each agent's requests send its own.
        async with httpx.AsyncClient(
            base_url=stack.url, headers=ADMIN_HEADERS, timeout=120, limits=limits
        ) as http:
            agents = await _setup(http, clients, turns)
            samples: dict[str, list[float]] = defaultdict(list)
            errors: Counter[str] = Counter()
            started = time.monotonic()
            await asyncio.gather(
                *(
                    _run_client(
                        agent,
                        started + seconds,
                        turns,
                        questions,
                        random.Random(seed + i),
                        samples,
                        errors,
                    )
                    for i, agent in enumerate(agents)
                )
            )
            elapsed = time.monotonic() - started
    total = sum(len(v) for v in samples.values())
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "requests": total,
        "requests_per_s": round(total / elapsed, 1),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors.most_common(10)),
        "by_operation": {
            op: {"requests_per_s": round(len(v) / elapsed, 1), "latency_ms": percentiles(v)}
            for op, v in sorted(samples.items())
        },
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=7)
    report_cli(parser, lambda a: run(a.clients, a.seconds, a.seed), show)


def show(report: Report, args: argparse.Namespace) -> None:
    """The totals, then one line per operation and per kind of error."""
    print(
        f"{report['clients']} clients, {report['seconds']} s: {report['requests']} requests, "
        f"{report['requests_per_s']} req/s, {report['errors']} errors"
    )
    for op, figures in report["by_operation"].items():
        latency = figures["latency_ms"]
        print(
            f"  {op:<11} {figures['requests_per_s']:>6} req/s  p50 {latency['p50']:>8} ms  "
            f"p95 {latency['p95']:>8} ms  p99 {latency['p99']:>8} ms  (n={latency['n']})"
        )
    for kind, count in report["error_kinds"].items():
        print(f"  error x{count}: {kind}")


if __name__ == "__main__":
    main()
