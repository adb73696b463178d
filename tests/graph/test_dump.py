"""The dump's Cypher on every server: every label and edge kind written, read back the same.

``hippograph export`` and ``import`` of a dump (tests/cli/test_dump.py, on the
embedded store) go through ``DumpGraph``; this is its contract: a dump naming
every node label and every edge kind loads (in batches that end mid-label),
loads again without creating anything, and exports line for line as it came,
paged in pages that end mid-label, on each server.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from neo4j import AsyncManagedTransaction

from graph.driver import execute
from graph.embedding_meta import VectorModel
from graph.store import GraphStore
from hippograph.clock import utc_now
from hippograph.dump import (
    EDGE_KINDS,
    NODE_LABELS,
    DumpCounts,
    DumpHeader,
    EdgeRecord,
    EmbeddingInfo,
    ExportError,
    NodeRecord,
    check_dump,
    edge_line,
    header_line,
    node_line,
)
from tests.conftest import DIMENSIONS, MODEL
from tests.support import T0, unit_vector

PER_LABEL = 3


def _props(label: str, i: int) -> dict[str, Any]:
    props: dict[str, Any] = {
        "id": f"{label.lower()}_{i}",
        "user_id": "ann",
        "created_at": T0 + timedelta(minutes=i),
        "tags": ["a", "b"],
        "weight": 0.5 + i,
        "flag": i % 2 == 0,
    }
    if label in ("Memory", "MemUnit"):
        # float32, as every server here keeps a vector (graph/records.py)
        props["embedding"] = np.asarray(unit_vector(i, DIMENSIONS), dtype=np.float32).tolist()
        props["search_text"] = f"text {i}"
    return props


def _dump(path: Path) -> DumpCounts:
    """A dump of PER_LABEL nodes of every label and one edge of every kind."""
    counts = DumpCounts()
    lines = []
    for label in NODE_LABELS:
        for i in range(PER_LABEL):
            lines.append(node_line(NodeRecord(label, _props(label, i))))
            counts.nodes[label] += 1
    for n, (edge_type, start, end) in enumerate(EDGE_KINDS):
        # From the first node of its start label to the second of its end's.
        props = {"at": T0 + timedelta(hours=n)} if n % 2 else {}
        record = EdgeRecord(
            (edge_type, start, end), f"{start.lower()}_0", f"{end.lower()}_1", props
        )
        lines.append(edge_line(record))
        counts.edges[edge_type.value] += 1
    header = DumpHeader(utc_now(), EmbeddingInfo(MODEL, DIMENSIONS), counts)
    path.write_text(header_line(header) + "".join(lines), encoding="utf-8")
    return counts


def _body(path: Path) -> list[dict[str, Any]]:
    """Every line after the header, parsed, in the order written."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]


async def _export(store: GraphStore, path: Path) -> DumpCounts:
    with path.open("w", encoding="utf-8") as out:
        return await store.dump.export(out, utc_now(), page_size=2)


async def test_every_label_and_edge_kind_loads_and_exports_as_it_came(
    store: GraphStore, tmp_path: Path
) -> None:
    source, again = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    counts = _dump(source)
    checked = check_dump(source)
    report = await store.dump.load(checked, batch_size=2)
    assert (report.nodes_created, report.edges_created) == (
        sum(counts.nodes.values()),
        sum(counts.edges.values()),
    )
    second = await store.dump.load(checked)
    assert (second.nodes_created, second.edges_created) == (0, 0)
    assert await _export(store, again) == counts
    assert json.loads(again.read_text().splitlines()[0])["embedding"] == {
        "model": MODEL,
        "dimensions": DIMENSIONS,
        "precision": "float32",
    }
    written, read = _body(source), _body(again)
    # Nodes come back by label in dump order; within a label and among the
    # edges the order is the server's (by id), so compare them as sets.
    key = json.dumps
    assert sorted(map(key, read)) == sorted(map(key, written))
    labels = [line["label"] for line in read if "label" in line]
    assert labels == sorted(labels, key=NODE_LABELS.index)


async def test_a_graph_half_re_embedded_is_not_exported_as_one_models(
    store: GraphStore, tmp_path: Path
) -> None:
    await store.begin_reindex(VectorModel("other-model", DIMENSIONS), "run-1")
    with pytest.raises(ExportError, match="hippograph reindex --model other-model"):
        await _export(store, tmp_path / "out.jsonl")


async def test_a_node_of_a_label_a_dump_cannot_carry_stops_the_export_first(
    store: GraphStore, tmp_path: Path
) -> None:
    async def stranger(tx: AsyncManagedTransaction) -> None:
        await execute(tx, "CREATE (:Stranger {id: 'x'})")

    await store.graph.write(stranger)
    with pytest.raises(ExportError, match="Stranger"):
        await _export(store, tmp_path / "out.jsonl")
