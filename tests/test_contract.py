"""The one folder of operations: every document the project sends, valid and carried to code.

``operations/`` holds each GraphQL operation the Python client (and so MCP,
whose tools are calls of it), the /explore page and the benchmarks send, and the examples the docs show
(links to the files the packages ship or serve, and to docs/examples); ``schema.graphql`` is the schema served
(tests/api/test_schema_file.py). Here every operation is validated against
it, the client's own reading of its file is held to graphql-core's, and the
modules ``python -m codegen`` writes (enums, inputs, records) are checked to
be in step, and the operations the README and docs/ show in ``graphql``
blocks are validated too, so a schema
change that breaks a consumer fails in one place.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from graphql import (
    GraphQLError,
    OperationDefinitionNode,
    build_schema,
    parse,
    print_ast,
    validate,
)
from hippograph_client import operations as client_operations

from codegen.__main__ import OPERATIONS, ROOT, stale
from hippograph.graphql_documents import Operation, operations

SCHEMA = build_schema((ROOT / "schema.graphql").read_text(encoding="utf-8"))
# operations/examples links to docs/examples: the operations a reader pastes.
FILES = sorted(OPERATIONS.glob("*.graphql")) + sorted((OPERATIONS / "examples").glob("*.graphql"))
ALL = [(str(path.relative_to(OPERATIONS)), op) for path in FILES for op in operations(path)]


@pytest.mark.parametrize(("file", "op"), ALL, ids=[f"{f}:{op.name}" for f, op in ALL])
def test_every_operation_is_valid_against_the_schema(file: str, op: Operation) -> None:
    assert [str(e) for e in validate(SCHEMA, parse(op.document))] == [], file


def test_each_consumer_has_its_file_and_names_each_operation_once() -> None:
    for path in FILES:
        names = [op.name for op in operations(path)]
        assert len(names) == len(set(names)), path.name
    files = {f for f, _ in ALL}
    assert {"client.graphql", "explore.graphql", "bench.graphql"} <= files
    assert len([f for f in files if f.startswith("examples/")]) >= 5


def test_the_packages_ship_the_folders_files() -> None:
    assert (OPERATIONS / "client.graphql").resolve() == (
        ROOT / "client/hippograph_client/operations.graphql"
    )
    served = ROOT / "hippograph/server/static/explore.graphql"  # /explore fetches it
    assert (OPERATIONS / "explore.graphql").resolve() == served


def test_the_client_reads_its_file_as_graphql_core_does() -> None:
    path = OPERATIONS / "client.graphql"
    ours = client_operations.documents(path.read_text(encoding="utf-8"))
    assert ours == {op.name: op.document for op in operations(path)}
    assert tuple(ours.values()) == client_operations.ALL


def test_the_written_modules_are_in_step_with_the_schema_and_operations() -> None:
    assert [str(p.relative_to(ROOT)) for p in stale()] == [], "run: python -m codegen"


def _sent_from_a_string(path: Path) -> list[str]:
    """Where ``path`` holds a whole GraphQL operation in a string literal."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        text = node.value.strip()
        if not text.startswith(("query", "mutation", "subscription", "{")):
            continue
        try:
            definitions = parse(text).definitions
        except GraphQLError:
            continue  # words, JSON, a format string: not a document
        if any(
            isinstance(d, OperationDefinitionNode) and d.selection_set.selections
            for d in definitions
        ):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_module_sends_a_document_of_its_own() -> None:
    folders = [
        "bench",
        "client/hippograph_client",
        "codegen",
        "graph",
        "hippograph",
        "jobs",
        "neo4j_launcher",
        "resolvers",
        "schema",
    ]
    modules = [path for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))]
    assert len(modules) > 100
    assert [hit for path in modules for hit in _sent_from_a_string(path)] == []


def test_the_benchmarks_ask_for_the_operations_of_their_file_and_use_each() -> None:
    asked = {
        name
        for path in (ROOT / "bench").rglob("*.py")
        for name in re.findall(r'document\("(\w+)"\)', path.read_text(encoding="utf-8"))
    }
    assert asked == {op.name for op in operations(OPERATIONS / "bench.graphql")}


def test_an_operation_carries_the_fragments_it_spreads_and_no_others(tmp_path: Path) -> None:
    path = tmp_path / "ops.graphql"
    path.write_text(
        "fragment A on User { id ...B }\nfragment B on User { name }\n"
        "fragment C on User { createdAt }\n"
        "query One { user(id: 1) { ...A } }\nquery Two { user(id: 2) { id } }\n"
    )
    one, two = operations(path)
    assert one.document == (
        "query One { user(id: 1) { ...A } }\n"
        "fragment A on User { id ...B }\nfragment B on User { name }\n"
    )
    assert two.document == "query Two { user(id: 2) { id } }\n"
    path.write_text("query { viewer { name } }\n")
    with pytest.raises(ValueError, match="needs a name"):
        operations(path)


def _prose_operations() -> list[tuple[str, str]]:
    """Each operation of a ``graphql`` block in the README and docs/, by its file."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in re.findall(r"```graphql\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
            # Blocks may show several anonymous operations side by side: one each.
            for definition in parse(block).definitions:
                found.append((str(path.relative_to(ROOT)), print_ast(definition)))
    return found


def test_every_operation_the_docs_show_is_valid_against_the_schema() -> None:
    shown = _prose_operations()
    assert {file for file, _ in shown} >= {"README.md", "docs/subscriptions.md"}
    invalid = [(file, str(error)) for file, op in shown for error in validate(SCHEMA, parse(op))]
    assert invalid == []
