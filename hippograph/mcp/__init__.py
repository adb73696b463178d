"""The MCP server: HippoGraph's memory as Model Context Protocol tools and resources.

Every tool and resource is a call of the typed Python client, sent to the
same app's ``/graphql`` over an in-process transport as the caller
(``inprocess.py``), so scoping, validation, limits and error codes are
exactly GraphQL's, and documents, enums and job waiting are the client's.
``server.py`` builds the ``MCPServer`` from the declared tools (``tools.py``,
``memory_tools.py``, ``user_tools.py``; ``toolkit.py`` says how a
declaration becomes a tool) and ``resources.py``; ``caller.py`` says who is
asking; ``http.py`` mounts it at ``/mcp``, and ``key.py`` and ``stdio.py``
serve ``hippograph mcp``. See ``docs/mcp.md``.
"""
