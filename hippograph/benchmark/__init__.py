"""The retrieval benchmark that ships with the service (``hippograph bench locomo``).

Kept out of the composition root and the production services: it loads
LoCoMo-format conversations through a runtime (``locomo``), can store every
turn as a memory of its own for the turn-granularity baseline (``turns``),
and scores hits with LoCoMo's official recall (``recall``).
"""
