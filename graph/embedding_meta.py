"""Which model the graph's vectors came from, and a re-embedding under way.

One ``Meta {id: 'embedding'}`` node records the model, its dimensions and
precision when the graph is first set up. A start with another model is
refused, naming the command that re-embeds (``hippograph reindex --model``):
vectors of two models in one index rank nonsense, even when the dimensions
agree (MiniLM, e5-small and bge-small all have 384). While a re-embedding
runs the node also names its target and its run id; a start finds it there
after a kill and refuses until the re-embedding is finished.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.cypher import cypher
from graph.driver import GraphDriver, fetch
from hippograph.errors import ConfigError

_FIELDS = (
    "m.model AS model, m.dimensions AS dimensions, m.precision AS precision, "
    "m.reindex_model AS reindex_model, m.reindex_dimensions AS reindex_dimensions, "
    "m.reindex_precision AS reindex_precision, m.reindex_run AS reindex_run"
)
READ = cypher("embedding_meta.READ", "MATCH (m:Meta {id: 'embedding'}) RETURN " + _FIELDS)
RECORD = cypher(
    "embedding_meta.RECORD",
    "MERGE (m:Meta {id: 'embedding'}) "
    "ON CREATE SET m.model = $model, m.dimensions = $dimensions, m.precision = $precision "
    "RETURN " + _FIELDS,
)
BEGIN = cypher(
    "embedding_meta.BEGIN",
    "MATCH (m:Meta {id: 'embedding'}) "
    "SET m.reindex_model = $model, m.reindex_dimensions = $dimensions, "
    "m.reindex_precision = $precision, m.reindex_run = $run",
)
FINISH = cypher(
    "embedding_meta.FINISH",
    "MATCH (m:Meta {id: 'embedding'}) WHERE m.reindex_run = $run "
    "SET m.model = m.reindex_model, m.dimensions = m.reindex_dimensions, "
    "m.precision = m.reindex_precision, m.reindex_model = null, m.reindex_dimensions = null, "
    "m.reindex_precision = null, m.reindex_run = null "
    "RETURN count(m) AS finished",
)


@dataclass(frozen=True, slots=True)
class VectorModel:
    """A model as the graph records it: its name, vector length and precision."""

    model: str
    dimensions: int
    precision: str = "float32"


@dataclass(frozen=True, slots=True)
class StoredVectors:
    """What the graph's Meta node says: the vectors' model, and a re-embedding under way."""

    vectors: VectorModel
    reindex: VectorModel | None = None
    reindex_run: str | None = None


def stored_from(row: Mapping[str, Any]) -> StoredVectors:
    """The record from a row of ``READ`` (or ``RECORD``)."""
    # A graph from before precisions were recorded holds MiniLM's float32 vectors.
    vectors = VectorModel(str(row["model"]), int(row["dimensions"]), row["precision"] or "float32")
    if row["reindex_run"] is None:
        return StoredVectors(vectors)
    target = VectorModel(
        str(row["reindex_model"]), int(row["reindex_dimensions"]), str(row["reindex_precision"])
    )
    return StoredVectors(vectors, target, str(row["reindex_run"]))


async def record(graph: GraphDriver, running: VectorModel) -> StoredVectors:
    """The graph's record, written first from ``running`` if the graph has none."""

    async def work(tx: AsyncManagedTransaction) -> StoredVectors:
        params = {
            "model": running.model,
            "dimensions": running.dimensions,
            "precision": running.precision,
        }
        return stored_from((await fetch(tx, RECORD, params))[0])

    return await graph.write(work, merge_only=True)


async def read(graph: GraphDriver) -> StoredVectors | None:
    """The graph's record, or None for a graph never set up."""

    async def work(tx: AsyncManagedTransaction) -> StoredVectors | None:
        rows = await fetch(tx, READ)
        return stored_from(rows[0]) if rows else None

    return await graph.read(work)


async def begin_reindex(graph: GraphDriver, target: VectorModel, run: str) -> None:
    """Note that a re-embedding to ``target`` runs as ``run`` (a start now refuses)."""

    async def work(tx: AsyncManagedTransaction) -> None:
        params = {
            "model": target.model,
            "dimensions": target.dimensions,
            "precision": target.precision,
            "run": run,
        }
        await (await tx.run(BEGIN, params)).consume()

    await graph.write(work)


async def finish_reindex(graph: GraphDriver, run: str) -> None:
    """Make run ``run``'s target the graph's model (every vector is re-embedded)."""

    async def work(tx: AsyncManagedTransaction) -> int:
        return int((await fetch(tx, FINISH, {"run": run}))[0]["finished"])

    if await graph.write(work) != 1:
        raise ConfigError(f"re-embedding run {run} is no longer the graph's: another one began")


def interrupted(stored: StoredVectors) -> str | None:
    """What is wrong with a graph whose re-embedding was cut short, and the command that
    finishes it; None when none is under way."""
    if stored.reindex is None:
        return None
    return (
        f"re-embedding this graph with {stored.reindex.model} was interrupted, so its "
        f"vectors are a mix of two models: run `hippograph reindex --model "
        f"{stored.reindex.model} --precision {stored.reindex.precision}` to finish it"
    )


def refusal(stored: StoredVectors, running: VectorModel, known_as: Collection[str]) -> str | None:
    """Why a process running ``running`` must not use this graph; None when it may.

    ``known_as``: the names under which the graph may have recorded the
    running model (a catalog model's aliases, such as the
    ``all-MiniLM-L6-v2`` graphs recorded before models had a catalog).
    """
    names = {running.model.lower(), *(n.lower() for n in known_as)}
    if (mixed := interrupted(stored)) is not None:
        return f"{mixed} (with the service stopped)"
    if stored.vectors.model.lower() not in names:
        return (
            f"this graph's vectors come from {stored.vectors.model} "
            f"({stored.vectors.dimensions} dimensions), but HIPPOGRAPH_EMBEDDING__MODEL is "
            f"{running.model}: re-embed them with `hippograph reindex --model {running.model}` "
            f"(with the service stopped), or set HIPPOGRAPH_EMBEDDING__MODEL="
            f"{stored.vectors.model}"
        )
    if stored.vectors.dimensions != running.dimensions:
        return (
            f"this graph holds {stored.vectors.dimensions}-dimension embeddings from "
            f"{stored.vectors.model!r}, but HIPPOGRAPH_EMBEDDING__MODEL={running.model!r} makes "
            f"{running.dimensions}: use the original model or a fresh database"
        )
    return None
