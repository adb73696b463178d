"""The README on MCP: its desktop configuration runs ``hippograph mcp``, its table names the tools."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hippograph.cli import build_parser, cmd_mcp
from hippograph.mcp.server import TOOLS
from tests.documents import section


def test_the_quick_starts_mcp_configuration_starts_the_stdio_server() -> None:
    quick_start = section("README.md", "Quick start")
    blocks = re.findall(r"```json\n(.*?)```", quick_start, flags=re.DOTALL)
    assert len(blocks) == 1
    server = json.loads(blocks[0])["mcpServers"]["hippograph"]

    assert Path(server["command"]).name == "hippograph"
    assert build_parser().parse_args(server["args"]).func is cmd_mcp
    assert set(server["env"]) == {"HIPPOGRAPH_API_KEY", "HIPPOGRAPH_GRAPH__DATA_DIR"}


def test_the_readmes_tool_table_names_every_tool_and_only_tools() -> None:
    rows = [line for line in section("README.md", "MCP").splitlines() if line.startswith("| `")]
    named = [name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[1])]
    assert sorted(named) == sorted(declared.fn.__name__ for declared in TOOLS)
