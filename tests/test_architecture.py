"""The layering the design asks for, checked on the source."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = {
    "strawberry",
    "starlette",
    "neo4j",
    "arq",
    "sentence_transformers",
    "uvicorn",
    "mcp",
}
# The framework edge of hippograph/: the composition root (runtime.py wires a
# process, wiring.py builds its services, metrics.py is what it exposes), the
# web layer, the MCP server, the adapters, the command line and the benchmark runner.
EDGE = {
    "server",
    "mcp",
    "adapters",
    "runtime.py",
    "wiring.py",
    "metrics.py",
    "cli.py",
    "benchmark",
    "cli_context.py",
    "cli_transfer.py",
    "cli_models.py",
    "cli_jvm.py",
}


def _modules(path: Path, *, runtime_only: bool = False) -> set[str]:
    """Every module ``path`` imports, by its full dotted name.

    ``runtime_only`` leaves out the imports under ``if TYPE_CHECKING:``, which
    only the type checker follows.
    """
    tree = ast.parse(path.read_text())
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if runtime_only
        and isinstance(block, ast.If)
        and isinstance(block.test, ast.Name)
        and block.test.id == "TYPE_CHECKING"
        for stmt in block.body
        for node in ast.walk(stmt)
    }
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _imports(path: Path) -> set[str]:
    """The top-level packages ``path`` imports."""
    return {name.split(".")[0] for name in _modules(path)}


def test_the_domain_imports_no_framework() -> None:
    offenders = {}
    for path in (ROOT / "hippograph").rglob("*.py"):
        if path.relative_to(ROOT / "hippograph").parts[0] in EDGE:
            continue
        bad = (_imports(path) & FRAMEWORKS) | (
            _imports(path) & {"graph", "schema", "resolvers", "jobs"}
        )
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_only_graph_talks_to_the_driver() -> None:
    for package in ("schema", "resolvers", "jobs", "hippograph"):
        for path in (ROOT / package).rglob("*.py"):
            assert "neo4j" not in _imports(path), path


def test_modules_stay_small() -> None:
    sizes = {
        str(p.relative_to(ROOT)): len(p.read_text().splitlines())
        for package in ("hippograph", "schema", "resolvers", "graph", "jobs")
        for p in (ROOT / package).rglob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > 400} == {}


def test_jobs_do_not_import_the_web_layer() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(bad)
        for path in (ROOT / "jobs").rglob("*.py")
        if (bad := {m for m in _modules(path) if m.split(".")[:2] == ["hippograph", "server"]})
    }
    assert offenders == {}


def test_mcp_reaches_the_api_only_through_the_client() -> None:
    # Its tools are calls of the typed client over an in-process transport:
    # no schema, resolvers, services or graph of its own to drift from the API.
    below = ("schema", "resolvers", "graph", "jobs", "hippograph.services", "hippograph.graph")
    offenders = {
        str(path.relative_to(ROOT)): sorted(bad)
        for path in (ROOT / "hippograph" / "mcp").rglob("*.py")
        if (
            bad := {
                m for m in _modules(path) if any(m == b or m.startswith(f"{b}.") for b in below)
            }
        )
    }
    assert offenders == {}


def test_the_graph_does_not_import_the_services_above_it() -> None:
    # The services declare what they need from the graph (Protocols beside
    # them); the graph implements it and is handed anything else it needs
    # (the job payload codec) by the composition root.
    offenders = {
        str(path.relative_to(ROOT)): sorted(bad)
        for path in (ROOT / "graph").rglob("*.py")
        if (
            bad := {
                m for m in _modules(path, runtime_only=True) if m.startswith("hippograph.services")
            }
        )
    }
    assert offenders == {}


def test_the_client_needs_only_httpx() -> None:
    # An agent installs the client beside httpx alone: it imports nothing of
    # the server (graph, services, schema, strawberry…), even for types.
    allowed = set(sys.stdlib_module_names) | {"httpx"}
    offenders = {
        str(path.relative_to(ROOT)): sorted(bad)
        for path in (ROOT / "client" / "hippograph_client").rglob("*.py")
        if (
            bad := {
                m
                for m in _modules(path)
                if m.split(".")[0] not in allowed and not m.startswith("hippograph_client")
            }
        )
    }
    assert offenders == {}


def test_the_design_cited_is_in_the_repository() -> None:
    # The design notes the project started from are not in this repository:
    # what the code relies on is in docs/design.md, and that is what it cites;
    # the benches read the dev conversations from bench/data/ (not the shared
    # folder beside the checkout).
    outside = ("DESIGN.md", "seeds/", "../shared", '"shared"', "/work/shared")
    offenders = {
        str(path.relative_to(ROOT)): [word for word in outside if word in path.read_text()]
        for folder in ("hippograph", "schema", "resolvers", "graph", "jobs", "bench", "docs", "web")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in {".py", ".md", ".js", ".graphql"} and "node_modules" not in path.parts
    }
    offenders |= {"README.md": [w for w in outside if w in (ROOT / "README.md").read_text()]}
    assert {name: words for name, words in offenders.items() if words} == {}
