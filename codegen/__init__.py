"""The API contract's code: Python modules written from ``schema.graphql`` and ``operations/``.

Every GraphQL document the project sends lives in ``operations/`` as
``.graphql`` (one file per consumer: the Python client, MCP, the load
benchmark); ``schema.graphql`` is the running schema (tests/api keeps it
so). ``python -m codegen`` writes from them the modules that carry them to
code which cannot read the repository at run time: the client's documents
and enums (its wheel ships alone) and MCP's documents (the server's image
holds its package only). ``python -m codegen --check`` (run by ``make
lint``) fails when a written module is out of step.
"""
