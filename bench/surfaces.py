"""What each way into the service adds to a search: GraphQL, the Python client, MCP.

1. Bulk-insert ``--memories`` memories for one user on the embedded ArcadeDB
   (LoCoMo turns, as ``bench.search_latency`` loads them), stop.
2. Start ``hippograph serve`` on that data and, side by side in one run,
   time the same ``--searches`` LoCoMo questions (HYBRID, top 10, no touch)
   through each surface, after a warm-up:

   * ``graphql``: a POST to ``/graphql`` with httpx, a short query written out
     (ids, content, the breakdown's main parts);
   * ``graphql-client-doc``: the same POST with the client's own document,
     which selects every field of a hit (so the next row's difference is
     the client's parsing alone);
   * ``client``: ``hippograph_client.AsyncHippoGraph.search`` (typed results);
   * ``mcp``: the ``search`` tool over streamable HTTP at ``/mcp``, with the
     MCP SDK's own client in one session.

   The surfaces take turns question by question, so a slow moment of the
   shared machine falls on all of them alike.
3. Live updates: one ``memoryAdded`` subscription over a websocket
   (graphql-transport-ws), then ``--events`` memories added with the
   client, one at a time; the time from sending ``addMemory`` to the event
   arriving on the subscription: p50/p95, beside the time the mutation
   itself took to answer.

    python -m bench.surfaces --memories 10000 --searches 200 [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import httpx2
from hippograph_client import AsyncHippoGraph
from hippograph_client.clients import SEARCH as CLIENT_SEARCH
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench.common import (
    ADMIN_HEADERS,
    ADMIN_KEY,
    Report,
    document,
    locomo_questions,
    machine,
    percentiles,
    report_cli,
    stopwatch,
)
from bench.search_latency import USER, distinct_texts, load
from bench.stack import memory_added, running
from hippograph.runtime import Runtime
from hippograph.settings import ApiSettings, GraphSettings, Settings

QUERY = document("BenchSearchBreakdown")

Timed = Callable[[str], Awaitable[None]]


async def side_by_side(
    surfaces: dict[str, Timed], questions: list[str], warmup: int
) -> dict[str, Any]:
    """Each surface's latency over the same questions, asked in turn, after a warm-up."""
    for question in questions[:warmup]:
        for ask in surfaces.values():
            await ask(question)
    samples: dict[str, list[float]] = {name: [] for name in surfaces}
    for question in questions:
        for name, ask in surfaces.items():
            with stopwatch() as took:
                await ask(question)
            samples[name].append(took[0] * 1000)
    return {name: {"latency_ms": percentiles(ms)} for name, ms in samples.items()}


async def searches(base: str, questions: list[str], warmup: int) -> dict[str, Any]:
    """GraphQL, the client and MCP, side by side on one server."""
    async with (
        httpx.AsyncClient(base_url=base, headers=ADMIN_HEADERS, timeout=60) as http,
        AsyncHippoGraph(base, ADMIN_KEY, timeout=60) as client,
        httpx2.AsyncClient(headers=ADMIN_HEADERS, timeout=60) as mcp_http,
        Client(streamable_http_client(f"{base}/mcp", http_client=mcp_http)) as mcp,
    ):

        async def post(document: str, variables: dict[str, Any]) -> None:
            answer = await http.post("/graphql", json={"query": document, "variables": variables})
            answer.raise_for_status()
            if "errors" in answer.json():
                raise RuntimeError(answer.text)

        async def graphql(question: str) -> None:
            await post(QUERY, {"u": USER, "q": question})

        async def client_document(question: str) -> None:
            variables = {"userId": USER, "query": question, "topK": 10, "touch": False}
            await post(CLIENT_SEARCH, variables)

        async def typed(question: str) -> None:
            await client.search(USER, question, top_k=10, touch=False)

        async def tool(question: str) -> None:
            result = await mcp.call_tool(
                "search", {"user_id": USER, "query": question, "top_k": 10, "touch": False}
            )
            if result.is_error:
                raise RuntimeError(str(result.content))

        return await side_by_side(
            {
                "graphql": graphql,
                "graphql-client-doc": client_document,
                "client": typed,
                "mcp": tool,
            },
            questions,
            warmup,
        )


async def live_updates(base: str, events: int) -> dict[str, Any]:
    """From sending ``addMemory`` to its ``memoryAdded`` event on an open subscription."""
    delivery: list[float] = []
    answered: list[float] = []
    async with (
        memory_added(base, ADMIN_KEY, USER) as ws,
        AsyncHippoGraph(base, ADMIN_KEY, timeout=60) as client,
    ):
        # The subscription listens once its message is handled: the first
        # event proves it, and is not timed.
        await client.add_memory(USER, "the subscription is listening")
        await _event(ws)
        for i in range(events):
            started = time.perf_counter()
            added = await client.add_memory(USER, f"live update number {i}")
            answered.append((time.perf_counter() - started) * 1000)
            while (await _event(ws)) != added.id:
                pass
            delivery.append((time.perf_counter() - started) * 1000)
    # the mutation's own answer, for comparison: the event comes after its commit
    return {"delivery_ms": percentiles(delivery), "add_memory_answer_ms": percentiles(answered)}


async def _event(ws: Any) -> str:
    """The id of the next memory the subscription announces (within 30 s)."""
    message = json.loads(await asyncio.wait_for(ws.recv(), 30))
    if message["type"] != "next" or message["payload"].get("errors"):
        raise RuntimeError(f"unexpected subscription message: {message}")
    return str(message["payload"]["data"]["memoryAdded"]["id"])


async def run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="hippograph-surfaces-"))
    questions = (locomo_questions() * 2)[: args.searches]
    settings = Settings(
        graph=GraphSettings(data_dir=data_dir), api=ApiSettings(admin_key=ADMIN_KEY)
    )
    runtime = await Runtime.start(settings)
    try:
        loaded = await load(runtime, distinct_texts(args.memories), args.batch)
    finally:
        await runtime.stop()
    async with running("arcadedb", data=data_dir) as stack:
        report: dict[str, Any] = {"search": await searches(stack.url, questions, args.warmup)}
        report["live_updates"] = await live_updates(stack.url, args.events)
    return {
        "benchmark": "surfaces",
        "machine": machine(),
        "graph": {"server": "arcadedb", "version": "embedded"},
        "settings": {
            "memories": args.memories,
            "searches": len(questions),
            "warmup": args.warmup,
            "events": args.events,
            "search": "HYBRID, top 10, touch false",
        },
        "insert": loaded,
        **report,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--data-dir", help="where the graph lives (default: a new temp dir)")
    report_cli(parser, run, show)


def show(report: Report, args: argparse.Namespace) -> None:
    """Search latency per surface, then live-update delivery."""
    for name, value in report["search"].items():
        print(
            f"search via {name:18s} p50/p95 {value['latency_ms']['p50']}/"
            f"{value['latency_ms']['p95']} ms"
        )
    live = report["live_updates"]["delivery_ms"]
    answer = report["live_updates"]["add_memory_answer_ms"]
    print(
        f"memoryAdded delivery p50/p95 {live['p50']}/{live['p95']} ms "
        f"(addMemory's own answer {answer['p50']}/{answer['p95']} ms)"
    )
    print(json.dumps(report["machine"]))


if __name__ == "__main__":
    main()
