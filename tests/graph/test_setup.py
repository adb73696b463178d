"""Schema setup: idempotent, the right index kinds, and a guard against a model change."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from neo4j import AsyncManagedTransaction

from graph.dialect import SHOW_INDEXES
from graph.driver import fetch
from graph.embedded import EmbeddedArcadeDB
from graph.store import GraphStore, connect
from hippograph.errors import ConfigError
from hippograph.models import MemoryFilter, Sources
from hippograph.settings import GraphSettings
from tests.conftest import DIMENSIONS, MODEL, fresh_database_name
from tests.support import T0, add_user, indexed, memory, unit_vector

Index = tuple[str, str, tuple[str, ...], tuple[str, ...]]  # name, type, labels, properties


async def _indexes(store: GraphStore) -> list[Index]:
    async def work(tx: AsyncManagedTransaction) -> list[Index]:
        return [
            (r["name"], r["type"], tuple(r["labelsOrTypes"] or ()), tuple(r["properties"] or ()))
            for r in await fetch(tx, SHOW_INDEXES)
        ]

    return await store.graph.read(work)


async def test_setup_twice_changes_nothing(store: GraphStore) -> None:
    before = await _indexes(store)
    await store.setup(model=MODEL, dimensions=DIMENSIONS)
    after = await _indexes(store)
    assert sorted(after) == sorted(before)


async def test_search_text_gets_a_fulltext_index_not_a_range_index(store: GraphStore) -> None:
    # On ArcadeDB a TEXT index is a RANGE index and would block the FULL_TEXT one.
    indexes = await _indexes(store)
    on_text = [i for i in indexes if "search_text" in i[3]]
    assert {(i[2], i[1]) for i in on_text} == {
        (("Memory",), "FULLTEXT"),
        (("MemUnit",), "FULLTEXT"),
    }


async def test_both_embeddings_have_vector_indexes(store: GraphStore) -> None:
    indexes = await _indexes(store)
    vector = {i[2] for i in indexes if i[1] == "VECTOR"}
    assert vector == {("Memory",), ("MemUnit",)}


async def test_a_model_of_another_size_is_refused_with_both_named(store: GraphStore) -> None:
    with pytest.raises(ConfigError, match=r"384-dimension.*makes 768"):
        await store.setup(model="some-768-model", dimensions=768)


async def test_a_changed_ef_search_keeps_the_existing_index_and_starts(
    arcade: EmbeddedArcadeDB, tmp_path: Path, database_name: str
) -> None:
    # ArcadeDB refuses CREATE INDEX IF NOT EXISTS when the METADATA differs.
    indexes = []
    for ef_search in (400, 200):
        settings = GraphSettings(data_dir=tmp_path, vector_ef_search=ef_search)
        connection = await connect(settings, embedded=arcade, database=database_name)
        try:
            await connection.store.setup(model=MODEL, dimensions=DIMENSIONS)
            indexes.append(sorted(await _indexes(connection.store)))
        finally:
            await connection.close()
    assert indexes[0] == indexes[1]


async def test_reindex_applies_settings_an_existing_index_was_made_without(
    arcade: EmbeddedArcadeDB,
    tmp_path: Path,
    database_name: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def run(ef_search: int, work: Callable[[GraphStore], Awaitable[object]]) -> list[str]:
        """``work`` on a connection with ``ef_search``; the vector-index warnings it logged."""
        caplog.clear()
        settings = GraphSettings(data_dir=tmp_path, vector_ef_search=ef_search)
        connection = await connect(settings, embedded=arcade, database=database_name)
        try:
            await work(connection.store)
        finally:
            await connection.close()
        return [r.getMessage() for r in caplog.records if "vector index" in r.getMessage()]

    async def setup(store: GraphStore) -> None:
        await store.setup(model=MODEL, dimensions=DIMENSIONS)

    async def load(store: GraphStore) -> None:
        await setup(store)
        await add_user(store, "ann")
        items = [
            (memory("ann", f"note {i}"), indexed(f"note {i}", i), Sources()) for i in range(20)
        ]
        await store.memories.add_many(items)

    async def reindex(store: GraphStore) -> None:
        assert await store.rebuild_vector_indexes() == DIMENSIONS

    nearest: list[str] = []

    async def search(store: GraphStore) -> None:
        hits = await store.search.vector_index("ann", unit_vector(7), 3, MemoryFilter(), T0)
        nearest.append(hits[0].id)

    assert await run(400, load) == []
    await run(400, search)
    # Another efSearch: the existing index is kept (the start goes on), with a warning.
    kept = await run(200, setup)
    assert len(kept) == 2  # Memory's and MemUnit's
    assert all("`hippograph reindex` rebuilds it" in line for line in kept)
    assert await run(200, reindex) == []
    # Rebuilt with the current settings: the same start no longer warns,
    # and the rebuilt index finds what the old one found.
    assert await run(200, setup) == []
    await run(200, search)
    assert nearest[0] == nearest[1]


async def test_reindex_refuses_a_graph_never_set_up(
    arcade: EmbeddedArcadeDB, tmp_path: Path
) -> None:
    database = fresh_database_name()
    connection = await connect(GraphSettings(data_dir=tmp_path), embedded=arcade, database=database)
    try:
        with pytest.raises(ConfigError, match="hippograph init"):
            await connection.store.rebuild_vector_indexes()
    finally:
        await connection.close()
