"""What a tool call answers: its data as JSON, or its error with GraphQL's code."""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, TextContent

from hippograph.mcp.gateway import ToolFailure


def succeeded(data: dict[str, Any]) -> CallToolResult:
    """``data`` as structured content, and as JSON text for clients that read only text."""
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def failed(failure: ToolFailure) -> CallToolResult:
    """An error result (``isError``): ``CODE: message`` as text, and the parts as data."""
    return CallToolResult(
        content=[TextContent(type="text", text=str(failure))],
        structured_content={"error": failure.as_dict()},
        is_error=True,
    )
