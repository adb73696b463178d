"""Builds the MCP server: HippoGraph's declared tools and its resources, each a call of
the typed client, in process, as the caller."""

from __future__ import annotations

from functools import cache

from mcp.server.mcpserver.tools import Tool

from hippograph.mcp import memory_tools, tools, user_tools
from hippograph.mcp.caller import Caller
from hippograph.mcp.inprocess import InProcess
from hippograph.mcp.resources import register_resources
from hippograph.mcp.toolkit import Declared, ToolServer, served

INSTRUCTIONS = (
    "HippoGraph is long-term memory. Call memorize with new conversation turns, search "
    "to recall what matters for a question (each hit explains its score), and "
    "add_memory / update_memory / delete_memory to curate. provenance shows where a "
    "memory came from. list_users names the users your key may see."
)

TOOLS: tuple[Declared, ...] = (*tools.TOOLS, *memory_tools.TOOLS, *user_tools.TOOLS)
"""Every tool the server offers."""


@cache
def served_tools() -> tuple[Tool, ...]:
    """``TOOLS`` as the SDK serves them, built once per process: every server shares them."""
    return tuple(served(declared) for declared in TOOLS)


def build_server(connect: InProcess, caller: Caller) -> ToolServer:
    """An MCP server whose tools and resources reach the API through ``connect``,
    acting for the caller ``caller`` finds for each call."""
    server = ToolServer(
        connect,
        caller,
        "hippograph",
        title="HippoGraph",
        instructions=INSTRUCTIONS,
        # Our logging is configured by the command; the SDK's is only used when
        # nothing else configured the root logger.
        log_level="WARNING",
        tools=list(served_tools()),
    )
    register_resources(server)
    return server
