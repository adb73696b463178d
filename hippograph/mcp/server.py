"""Builds the MCP server: HippoGraph's tools and resources over one gateway."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import strawberry
from mcp.server.mcpserver import MCPServer

from hippograph.mcp.caller import Caller
from hippograph.mcp.gateway import Gateway
from hippograph.mcp.resources import register_resources
from hippograph.mcp.toolkit import Tools
from hippograph.mcp.tools import register_tools
from hippograph.services import Services

INSTRUCTIONS = (
    "HippoGraph is long-term memory. Call memorize with new conversation turns, search "
    "to recall what matters for a question (each hit explains its score), and "
    "add_memory / update_memory / delete_memory to curate. provenance shows where a "
    "memory came from. list_users names the users your key may see."
)


def build_server(
    schema: strawberry.Schema, services: Callable[[], Services], *, key: str | None = None
) -> MCPServer[Any]:
    """An MCP server running every operation on ``schema`` with ``services``.

    ``key`` is the stdio process's API key; without it (over HTTP) each request
    brings its own, authenticated before the request reaches the server.
    """
    server: MCPServer[Any] = MCPServer(
        "hippograph",
        title="HippoGraph",
        instructions=INSTRUCTIONS,
        # Our logging is configured by the command; the SDK's is only used when
        # nothing else configured the root logger.
        log_level="WARNING",
    )
    gateway = Gateway(schema=schema, services=services)
    caller = Caller(services=services, key=key)
    register_tools(server, Tools(gateway=gateway, caller=caller))
    register_resources(server, gateway, caller)
    return server
