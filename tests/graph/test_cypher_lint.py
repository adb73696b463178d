"""Every Cypher string of graph/ passes Neo4j's own parser (npm @neo4j-cypher/language-support).

ArcadeDB accepts some Cypher that Neo4j does not; this keeps such queries out.
The linter also knows our labels, relationship types and property keys, so a
typo in one of them is reported too.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import graph
from graph.cypher import registered
from graph.dialect import neo4j_vector_index_ddl
from graph.jobs import JOB_MAP
from graph.records import MEMORY_MAP, MEMUNIT_MAP, MESSAGE_MAP, SESSION_MAP, USER_MAP
from hippograph.models import EdgeType

ROOT = Path(__file__).resolve().parents[2]
LINTER = ROOT / "web" / "cypher-lint.mjs"

LABELS = ["User", "Session", "Message", "MemUnit", "Memory", "Entity", "ApiKey", "Meta", "Job"]
# Every property a node of ours carries, read off the record projections, plus
# the few written elsewhere and the keys of parameter maps (the linter cannot
# tell a map key from a property).
PROPERTY_KEYS = sorted(
    set(
        re.findall(
            r"\.(\w+)", USER_MAP + SESSION_MAP + MESSAGE_MAP + MEMUNIT_MAP + MEMORY_MAP + JOB_MAP
        )
    )
    | {"embedding", "search_text", "user_key", "last_seq", "key_hash", "admin", "revoked"}
    | {"model", "dimensions", "user_ids", "name"}
    | {"memory", "props", "unit", "source"}
    | {"norm", "kind", "entity"}  # Entity nodes (graph/entities.py) and their link maps
    | {"renewed_at", "queued_at"}  # a job's lease and time in the queue (graph/jobs.py)
    | {"precision", "reindex_model", "reindex_dimensions", "reindex_precision", "reindex_run"}
    | {"unit_deleted"}  # a deleted MemUnit's messages (graph/cascade.py), never read back
)

pytestmark = pytest.mark.slow  # Neo4j's parser in a Node child process (45 s here)


def _lint(queries: dict[str, str]) -> dict[str, list[dict[str, object]]]:
    if shutil.which("node") is None or not (ROOT / "web" / "node_modules").exists():
        pytest.fail("Node and web/node_modules are needed: run `make test` (it runs npm ci)")
    schema = {
        "labels": LABELS,
        "relationshipTypes": [t.value for t in EdgeType],
        "propertyKeys": PROPERTY_KEYS,
    }
    done = subprocess.run(
        ["node", str(LINTER)],
        input=json.dumps({"queries": queries, "schema": schema}),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT / "web",
        timeout=120,
    )
    report: dict[str, list[dict[str, object]]] = json.loads(done.stdout)
    return report


def all_queries() -> dict[str, str]:
    """Every registered query, after importing every graph module."""
    for module in pkgutil.iter_modules(graph.__path__):
        importlib.import_module(f"graph.{module.name}")
    queries: dict[str, str] = dict(registered())
    for name, label in (("memory_embedding", "Memory"), ("memunit_embedding", "MemUnit")):
        queries[f"dialect.NEO4J_VECTOR_INDEX[{label}]"] = neo4j_vector_index_ddl(name, label, 384)
        queries[f"dialect.NEO4J_VECTOR_INDEX[{label}, filtered]"] = neo4j_vector_index_ddl(
            name, label, 384, user_filter=True
        )
    return queries


def test_every_query_of_graph_parses_in_neo4j() -> None:
    queries = all_queries()
    assert len(queries) > 40
    report = _lint(queries)
    problems = {name: found for name, found in report.items() if found}
    assert problems == {}, json.dumps(problems, indent=2, ensure_ascii=False)


def test_the_check_fails_on_a_broken_query() -> None:
    report = _lint(
        {
            "missing_paren": "MATCH (m:Memory {id: $id} RETURN m",
            "typo_label": "MATCH (m:Memroy {id: $id}) RETURN m.id",
            "arcadedb_only_sql": "SELECT FROM Memory WHERE id = $id",
        }
    )
    assert any(d["severity"] == 1 for d in report["missing_paren"])
    assert report["typo_label"], "an unknown label must be reported"
    assert any(d["severity"] == 1 for d in report["arcadedb_only_sql"])
