"""``hippograph mcp``: the MCP server over stdin and stdout, for a desktop client.

stdout is the protocol, so nothing else may write to it: our logs go to
stderr (``hippograph.logs``), and while the runtime starts (the JVM of the
embedded graph, the model, and any library that prints a banner) file
descriptor 1 points at stderr too, until the SDK's stdio transport claims it
(and keeps stray writes off it the same way while it serves).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from hippograph.admission import Refused, admit
from hippograph.mcp.caller import Caller
from hippograph.mcp.inprocess import InProcess
from hippograph.mcp.key import StartRefused
from hippograph.mcp.server import build_server
from hippograph.runtime import Runtime
from hippograph.server.app import create_app
from hippograph.settings import Settings


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Point file descriptor 1 at stderr for the block, then back."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


async def serve_stdio(settings: Settings, key: str) -> None:
    """Start the runtime, check ``key``, and serve MCP on stdio until the client leaves."""
    with stdout_to_stderr():
        runtime = await Runtime.start(settings)
    try:
        try:
            # The same admission as every HTTP door (no rate: one client, one process).
            await admit(runtime.services.keys, None, f"Bearer {key}", None, anonymous=False)
        except Refused as exc:
            raise StartRefused(f"the API key was refused: {exc.message}") from exc
        # The tools reach the API through the app, in process, as this key.
        app = create_app(runtime=runtime)
        caller = Caller(keys=lambda: runtime.services.keys, key=key)
        server = build_server(InProcess(lambda: app), caller)
        await server.run_stdio_async()
    finally:
        await runtime.stop()
