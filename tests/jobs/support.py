"""Helpers of the job tests: GraphQL against a runtime, burst workers, Redis queue sizes."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from arq.worker import Worker
from redis.asyncio import Redis

from hippograph.server.app import create_app
from hippograph.server.runtime import Runtime
from hippograph.settings import Settings
from jobs.worker import build_worker
from tests.api.conftest import ADMIN_KEY

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


class GraphQL:
    """The API of a running runtime, over ASGI in this event loop, with the admin key."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def ok(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The ``data`` of an operation that must answer without GraphQL errors."""
        response = await self._client.post(
            "/graphql",
            json={"query": query, "variables": variables},
            headers={"Authorization": f"Bearer {ADMIN_KEY}"},
        )
        body = response.json()
        assert response.status_code == 200, body
        assert not body.get("errors"), body
        data: dict[str, Any] = body["data"]
        return data


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
        with warnings.catch_warnings():
            # arq 0.28 closes its pool with redis-py's deprecated close().
            warnings.filterwarnings("ignore", "Call to deprecated close", DeprecationWarning)
            await worker.close()
    return worker


async def queued_in_redis(settings: Settings) -> int:
    """How many arq jobs wait on the settings' queue."""
    client = Redis.from_url(settings.redis.url)
    try:
        return int(await client.zcard(settings.jobs.queue))
    finally:
        await client.aclose()
