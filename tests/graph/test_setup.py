"""Schema setup: idempotent, the right index kinds, and a guard against a model change."""

from __future__ import annotations

from pathlib import Path

import pytest
from neo4j import AsyncManagedTransaction

from graph.dialect import SHOW_INDEXES
from graph.driver import fetch
from graph.embedded import EmbeddedArcadeDB
from graph.store import GraphStore, connect
from hippograph.errors import ConfigError
from hippograph.settings import GraphSettings
from tests.conftest import DIMENSIONS, MODEL

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
