"""Schema setup: idempotent, the right index kinds, and a guard against a model change."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from neo4j import AsyncManagedTransaction

from graph.dialect import SHOW_INDEXES, neo4j_vector_index_ddl
from graph.driver import fetch
from graph.embedding_meta import VectorModel
from graph.store import GraphStore
from hippograph.errors import ConfigError
from hippograph.models import MemoryFilter, Sources
from tests.conftest import DIMENSIONS, MODEL
from tests.graphs import TestDatabase
from tests.support import T0, add_user, indexed, memory, unit_vector

Index = tuple[str, str, tuple[str, ...], tuple[str, ...]]  # name, type, labels, properties
INDEX_STATES = "SHOW INDEXES YIELD name, state RETURN name, state"


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


async def test_every_lookup_by_one_property_has_an_index_on_that_property_alone(
    store: GraphStore,
) -> None:
    # ArcadeDB does not look a composite index up by its first field: with only
    # (session_id, seq) on Memory, the context stage scanned every memory per
    # turn it fetched (minutes a search at 100k), though every test passed.
    indexes = await _indexes(store)
    single = {(labels, props) for _, _, labels, props in indexes if len(props) == 1}
    for label, prop in (
        ("Memory", "user_id"),
        ("Memory", "session_id"),
        ("Message", "session_id"),
        ("MemUnit", "session_id"),
        ("Session", "user_id"),
        ("Entity", "user_id"),
    ):
        assert ((label,), (prop,)) in single, (label, prop)


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
    with pytest.raises(ConfigError, match=rf"come from {MODEL} \(384 dimensions\).*some-768"):
        await store.setup(model="some-768-model", dimensions=768)
    with pytest.raises(ConfigError, match=r"384-dimension.*makes 768"):
        await store.setup(model=MODEL, dimensions=768)


async def test_another_model_of_the_same_size_is_refused_naming_the_command_that_reembeds(
    store: GraphStore,
) -> None:
    # MiniLM, e5-small and bge-small all make 384 numbers: only the record tells them apart.
    with pytest.raises(ConfigError) as refused:
        await store.setup(model="bge-small-en-v1.5", dimensions=DIMENSIONS)
    assert "`hippograph reindex --model bge-small-en-v1.5`" in refused.value.message
    assert f"HIPPOGRAPH_EMBEDDING__MODEL={MODEL}" in refused.value.message
    stored = await store.vectors()
    assert stored is not None
    assert stored.vectors.model == MODEL


async def test_a_graph_recorded_under_an_old_name_of_the_model_starts(
    pristine_db: TestDatabase, tmp_path: Path
) -> None:
    # Graphs set up before the catalog recorded MiniLM as the setting spelt it
    # (names compare in any case; an alias must be named).
    connection = await pristine_db.connect(tmp_path)
    try:
        old = "sentence-transformers/all-MiniLM-L6-v2"
        await connection.store.setup(model=old, dimensions=DIMENSIONS)
        await connection.store.setup(model=old.upper(), dimensions=DIMENSIONS)
        await connection.store.setup(
            model="all-minilm-l6-v2", dimensions=DIMENSIONS, known_as=(old,)
        )
        with pytest.raises(ConfigError, match="reindex --model all-minilm-l6-v2"):
            await connection.store.setup(model="all-minilm-l6-v2", dimensions=DIMENSIONS)
    finally:
        await connection.close()


async def test_an_interrupted_reembedding_refuses_every_start_until_it_is_finished(
    store: GraphStore,
) -> None:
    target = VectorModel("all-minilm-l6-v2", DIMENSIONS, "int8")
    await store.begin_reindex(target, "run-1")
    # The command that finishes it names the precision the run began at.
    finish = "run `hippograph reindex --model all-minilm-l6-v2 --precision int8`"
    for model in (MODEL, "all-minilm-l6-v2"):
        with pytest.raises(ConfigError, match=finish):
            await store.setup(model=model, dimensions=DIMENSIONS)
    # A plain rebuild of the indexes would size them for one of the two models.
    with pytest.raises(ConfigError, match=finish):
        await store.rebuild_vector_indexes()
    with pytest.raises(ConfigError, match="another one began"):
        await store.finish_reindex("run-0", DIMENSIONS)
    await store.finish_reindex("run-1", DIMENSIONS)
    stored = await store.vectors()
    assert stored is not None
    assert (stored.vectors, stored.reindex) == (target, None)
    await store.setup(model="all-minilm-l6-v2", dimensions=DIMENSIONS)
    assert "VECTOR" in {i[1] for i in await _indexes(store)}


@pytest.mark.slow  # waits out the retry policy on the refused index change (4 s)
@pytest.mark.only_on("arcadedb", "efSearch is ArcadeDB's index metadata; Neo4j has no such setting")
async def test_a_changed_ef_search_keeps_the_existing_index_and_starts(
    graph_db: TestDatabase, tmp_path: Path
) -> None:
    # ArcadeDB refuses CREATE INDEX IF NOT EXISTS when the METADATA differs.
    indexes = []
    for ef_search in (400, 200):
        connection = await graph_db.connect(tmp_path, vector_ef_search=ef_search)
        try:
            await connection.store.setup(model=MODEL, dimensions=DIMENSIONS)
            indexes.append(sorted(await _indexes(connection.store)))
        finally:
            await connection.close()
    assert indexes[0] == indexes[1]


@pytest.mark.slow  # waits out the retry policy, then rebuilds the index (4 s)
@pytest.mark.only_on("arcadedb", "the warning is about ArcadeDB's refusal of a changed efSearch")
async def test_reindex_applies_settings_an_existing_index_was_made_without(
    graph_db: TestDatabase, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def run(ef_search: int, work: Callable[[GraphStore], Awaitable[object]]) -> list[str]:
        """``work`` on a connection with ``ef_search``; the vector-index warnings it logged."""
        caplog.clear()
        connection = await graph_db.connect(tmp_path, vector_ef_search=ef_search)
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
    pristine_db: TestDatabase, tmp_path: Path
) -> None:
    connection = await pristine_db.connect(tmp_path)
    try:
        with pytest.raises(ConfigError, match="hippograph init"):
            await connection.store.rebuild_vector_indexes()
    finally:
        await connection.close()


@pytest.mark.slow  # waits for every index to come online, twice (20 s here)
async def test_setup_and_reindex_return_once_every_index_is_online(store: GraphStore) -> None:
    # Neo4j builds a new index in the background; a query on it meanwhile
    # waits for the whole build (16 s for 30k vectors here). Setup and
    # reindex wait for it instead, so a started service searches at once.
    await add_user(store, "ann")
    for batch in range(4):
        items = [
            (memory("ann", f"note {i}"), indexed(f"note {i}", i), Sources())
            for i in range(batch * 1000, (batch + 1) * 1000)
        ]
        await store.memories.add_many(items)
    assert await store.rebuild_vector_indexes() == DIMENSIONS
    states = await store.graph.query(INDEX_STATES)
    assert states
    assert {(r["name"], r["state"]) for r in states} == {(r["name"], "ONLINE") for r in states}
    hits = await store.search.vector_index("ann", unit_vector(1234), 10, MemoryFilter(), T0)
    assert hits[0].similarity is not None
    assert hits[0].similarity > 0.999


@pytest.mark.only_on("neo4j-2026", "only Neo4j 2026.01+ can make a vector index filterable by user")
async def test_an_index_from_before_the_search_clause_is_kept_until_reindex(
    pristine_db: TestDatabase, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    connection = await pristine_db.connect(tmp_path)
    try:
        store = connection.store
        # What Neo4j 5 made: the memory index without the user as a filter.
        await store.graph.run_schema(neo4j_vector_index_ddl("memory_embedding", "Memory", 384))
        await store.setup(model=MODEL, dimensions=DIMENSIONS)
        assert not store.search.scoped_vector_index()
        assert any("`hippograph reindex`" in r.getMessage() for r in caplog.records)
        await add_user(store, "ann")
        await store.memories.add(memory("ann", "a note"), indexed("a note", 5), Sources())
        hits = await store.search.vector_index("ann", unit_vector(5), 10, MemoryFilter(), T0)
        assert len(hits) == 1
        await store.rebuild_vector_indexes()
        assert store.search.scoped_vector_index()
        hits = await store.search.vector_index("ann", unit_vector(5), 10, MemoryFilter(), T0)
        assert len(hits) == 1
    finally:
        await connection.close()


async def test_two_processes_setting_up_one_graph_at_once_both_start(
    pristine_db: TestDatabase, tmp_path: Path
) -> None:
    # docker compose starts the API and the worker together, and each sets up
    # the schema: on Neo4j one of two racing CREATE ... IF NOT EXISTS failed
    # with EquivalentSchemaRuleAlreadyExists, and that process did not start.
    connections = [await pristine_db.connect(tmp_path) for _ in range(3)]
    try:
        await asyncio.gather(
            *(c.store.setup(model=MODEL, dimensions=DIMENSIONS) for c in connections)
        )
        names = {i[0] for i in await _indexes(connections[0].store)}
        assert {"memory_embedding", "memory_text"} <= names or {
            "Memory[embedding]",
            "Memory[user_key,search_text]",
        } <= names
    finally:
        for connection in connections:
            await connection.close()
