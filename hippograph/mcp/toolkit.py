"""How a tool is declared, and how a declaration becomes a tool the SDK serves.

A tool is a plain async function whose first parameter is the typed client
(``AsyncHippoGraph``) and whose others are what an agent sends, typed and
described (the SDK derives the input schema from them). It returns a client
value, or a dict of them. ``@tool`` declares it with its description and
hints; ``served`` makes it the SDK's ``Tool``: a function of the agent's
arguments that opens a client as the caller, runs the tool, and answers its
value as JSON, or a client error as an ``isError`` result with GraphQL's code.

A served tool belongs to no app: it finds the API and the caller through the
``ToolServer`` that calls it (the SDK's ``Context`` names it). So the tools
are built once per process, not once per app: building them (the SDK derives
a pydantic model from each signature) was most of an app's MCP set-up.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any

from hippograph_client import AsyncHippoGraph, HippoGraphError
from hippograph_client.decode import encode
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from hippograph.admission import Refused
from hippograph.mcp.caller import Caller
from hippograph.mcp.inprocess import InProcess

ToolFunction = Callable[..., Awaitable[Any]]

UserId = Annotated[
    str, Field(description="The user whose memories these are (list_users names them).")
]
MemoryId = Annotated[str, Field(description="A memory's id (mem_…), as search returns it.")]
WaitSeconds = Annotated[
    float,
    Field(
        ge=0,
        le=120,
        description="How long to wait for the job to finish before answering with its "
        "current state (0: answer at once; poll with get_job).",
    ),
]
After = Annotated[str | None, Field(description="The endCursor of the previous page.")]


@dataclass(frozen=True)
class Declared:
    """A tool: its function, what an agent reads about it, and its hints."""

    fn: ToolFunction
    description: str
    annotations: ToolAnnotations


def tool(
    description: str, *, read_only: bool = False, destructive: bool = False
) -> Callable[[ToolFunction], Declared]:
    """Declare the decorated function a tool (read-only tools are never destructive)."""
    hints = (
        ToolAnnotations(read_only_hint=True)
        if read_only
        else ToolAnnotations(read_only_hint=False, destructive_hint=destructive)
    )
    return lambda fn: Declared(fn, description, hints)


def succeeded(value: Any) -> CallToolResult:
    """A tool's value as structured content, and as JSON text for clients that read only text."""
    data = encode(value)
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def failed(code: str, message: str, field: str | None = None) -> CallToolResult:
    """An error result (``isError``): ``CODE: message`` as text, and the parts as data."""
    error = {"code": code, "message": message} | ({} if field is None else {"field": field})
    return CallToolResult(
        content=[TextContent(type="text", text=f"{code}: {message}")],
        structured_content={"error": error},
        is_error=True,
    )


class ToolServer(MCPServer[Any]):
    """The SDK's server, holding what its tools reach the API through: ``connect``
    opens a client in process, ``caller`` says who each call acts for."""

    def __init__(self, connect: InProcess, caller: Caller, name: str, **options: Any) -> None:
        super().__init__(name, **options)
        self.connect = connect
        self.caller = caller


def server_of(ctx: Context[Any, Any]) -> ToolServer:
    """The server a tool or resource call came through."""
    server = ctx.mcp_server
    if not isinstance(server, ToolServer):
        raise TypeError(f"a HippoGraph tool served by a {type(server).__name__}, not a ToolServer")
    return server


@asynccontextmanager
async def caller_client(ctx: Context[Any, Any]) -> AsyncIterator[AsyncHippoGraph]:
    """A client of the API acting as the caller of a tool or resource call
    (``Refused`` when admission turns the caller away)."""
    server = server_of(ctx)
    admitted = await server.caller.admitted(ctx)
    async with server.connect.client(admitted) as client:
        yield client


def served(declared: Declared) -> Tool:
    """The SDK's tool for ``declared``: the tool's own parameters but the client, and
    the SDK's ``Context`` (the request, hence the caller, and the server, hence the API)."""
    fn = declared.fn
    _client, *parameters = inspect.signature(fn, eval_str=True).parameters.values()

    async def call(ctx: Context[Any, Any], **arguments: Any) -> CallToolResult:
        try:
            async with caller_client(ctx) as client:
                return succeeded(await fn(client, **arguments))
        except HippoGraphError as exc:
            return failed(exc.code, exc.message, exc.field)
        except Refused as exc:
            return failed(exc.code, exc.message)

    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*parameters, context], return_annotation=CallToolResult
    )
    call.__annotations__ = {p.name: p.annotation for p in parameters} | {
        "ctx": Context,
        "return": CallToolResult,
    }
    return Tool.from_function(
        call, description=declared.description, annotations=declared.annotations
    )
