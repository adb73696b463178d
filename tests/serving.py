"""The app under uvicorn on a loopback port, in a thread of the test process.

The real HTTP stack (and websockets) for tests that need more than
starlette's TestClient: the MCP SDK's HTTP client, the typed client, the
browser, subscriptions.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.applications import Starlette

from graph.embedded import free_port


@contextlib.contextmanager
def serving(app: Starlette) -> Iterator[str]:
    """``app`` under uvicorn in a thread on a free loopback port; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", proxy_headers=False
    )  # as `hippograph serve` runs it: X-Forwarded-For is the app's to read
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
