"""The MCP server: HippoGraph's memory as Model Context Protocol tools and resources.

Every tool and resource runs a GraphQL operation on the app's own schema,
in-process, as the caller's principal (``gateway.py``), so scoping, validation,
limits and error codes are exactly GraphQL's. ``server.py`` builds the
``MCPServer``; ``tools.py`` and ``resources.py`` declare what it offers;
``caller.py`` says who is asking; ``http.py`` mounts it at ``/mcp`` and
``stdio.py`` serves ``hippograph mcp``. See ``docs/mcp.md``.
"""
