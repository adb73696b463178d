"""The client's enums, written from ``schema.graphql`` (``python -m codegen``).

The client's wheel ships alone, without graphql-core, so what it needs of
the schema is written into Python: its ``StrEnum`` classes. Its documents
need no writing: they are ``.graphql`` in its package, part of the project's
one folder of operations (``operations/``, validated by
tests/test_contract.py). ``python -m codegen --check`` (run by ``make lint``)
fails when the written module is out of step with the schema.
"""
