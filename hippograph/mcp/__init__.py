"""The MCP server: HippoGraph's memory as Model Context Protocol tools and resources.

Every tool and resource runs a GraphQL operation on the app's own schema,
in-process, as the caller's principal (``gateway.py``), so scoping, validation,
limits and error codes are exactly GraphQL's. ``server.py`` builds the
``MCPServer``; ``tools.py``, ``memory_tools.py`` and ``resources.py`` declare
what it offers (``toolkit.py``: what the tools share; ``operations.py``: the
GraphQL documents; ``results.py``: what a call answers); ``caller.py`` says
who is asking; ``http.py`` mounts it at ``/mcp``, and ``key.py`` and
``stdio.py`` serve ``hippograph mcp``. See ``docs/mcp.md``.
"""
