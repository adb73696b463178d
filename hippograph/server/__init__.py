"""The framework edge: the Starlette app, the GraphQL view and the runtime that wires it all.

Unlike the rest of ``hippograph``, this package imports frameworks (starlette,
strawberry, the graph package): it is the composition root.
"""
