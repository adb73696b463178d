"""A chat-completions server on a loopback port, answering from a script.

Each test queues the replies it wants (``StubLLMServer.script``) and reads back
what the adapter sent (``received``). It is real HTTP under uvicorn, so
timeouts, status codes and headers behave as they do against a provider.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a status, a body (JSON if not ``str``), headers, a delay."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    # Send the first half of the body, then drop the connection.
    cut: bool = False


@dataclass(frozen=True)
class Received:
    """One request the server got, with its arrival time (``time.monotonic``)."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float

    @property
    def system_prompt(self) -> str:
        """The system message's content."""
        return str(self.body["messages"][0]["content"])

    @property
    def user_payload(self) -> dict[str, Any]:
        """The user message, parsed back from JSON."""
        payload: dict[str, Any] = json.loads(self.body["messages"][1]["content"])
        return payload


def completion(content: str, prompt_tokens: int = 100, completion_tokens: int = 20) -> Reply:
    """A successful chat completion whose message is ``content``."""
    return Reply(
        body={
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def grouped(flat: dict[str, Any]) -> dict[str, Any]:
    """An extraction written flat (every item with its ``user_id``) as a model answers
    it: grouped by user (``hippograph.extraction.answer_schema``)."""
    users: dict[str, dict[str, Any]] = {}

    def entry(user_id: str) -> dict[str, Any]:
        return users.setdefault(user_id, {"facts": [], "profile": []})

    for episode in flat.get("episodes", []):
        entry(episode["user_id"])["episode"] = {
            "title": episode["title"],
            "narrative": episode["narrative"],
        }
    for part in ("facts", "profile"):
        for item in flat.get(part, []):
            fields = {k: v for k, v in item.items() if k != "user_id"}
            entry(item["user_id"])[part].append(fields)
    kept = {k: v for k, v in flat.items() if k not in ("episodes", "facts", "profile", "narrative")}
    return kept | {"users": users}


def error(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
    """An error in OpenAI's shape: ``{"error": {"message": ...}}``."""
    return Reply(status=status, body={"error": {"message": message}}, headers=headers or {})


class _ConnectionCut(Exception):
    """Raised inside a response body: uvicorn drops the connection mid-answer."""


async def _cut_short(body: bytes) -> AsyncIterator[bytes]:
    yield body[: len(body) // 2]
    raise _ConnectionCut("the stub drops the connection mid-answer")


def cut(content: str) -> Reply:
    """A completion whose connection is dropped halfway through its body."""
    return replace(completion(content), cut=True)


class StubLLMServer:
    """The scripted server; ``start`` it, ``script`` replies, ``stop`` it."""

    def __init__(self) -> None:
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self.received: list[Received] = []
        app = Starlette(routes=[Route("/v1/chat/completions", self._answer, methods=["POST"])])
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self.port: int = self._socket.getsockname()[1]
        config = uvicorn.Config(
            app, log_level="warning", lifespan="off", ws="none", timeout_graceful_shutdown=1
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """What ``LLMSettings.base_url`` should be."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies, answered in order, one per request."""
        with self._lock:
            self._replies.extend(replies)

    def drop_script(self) -> None:
        """Forget the replies scripted but not yet asked for."""
        with self._lock:
            self._replies.clear()

    @property
    def unanswered(self) -> int:
        """Replies scripted but not yet asked for."""
        with self._lock:
            return len(self._replies)

    def start(self) -> None:
        """Serve in a background thread; returns once the server accepts connections."""
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the stub LLM server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    async def _answer(self, request: Request) -> Response:
        body = await request.json()
        with self._lock:
            self.received.append(
                Received(request.url.path, dict(request.headers), body, time.monotonic())
            )
            reply = self._replies.popleft() if self._replies else None
        if reply is None:
            return PlainTextResponse("no reply scripted for this request", status_code=418)
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.cut:
            return StreamingResponse(_cut_short(json.dumps(reply.body).encode()), reply.status)
        if isinstance(reply.body, str):
            return PlainTextResponse(reply.body, reply.status, headers=reply.headers)
        return JSONResponse(reply.body, reply.status, headers=reply.headers)
