"""The Neo4j dialect's choices that need no server: which release has SEARCH, and the index DDL."""

from __future__ import annotations

import pytest

from graph.dialect import has_search_clause, neo4j_vector_index_ddl


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        ("Neo4j/5.26.31", False),
        ("Neo4j/5.26.0", False),
        ("Neo4j/2025.12.1", False),
        ("Neo4j/2026.01.3", True),
        ("Neo4j/2026.09.0", True),
        ("Neo4j/2027.02.0", True),
        ("Neo4j/5.26.0 compatible", False),  # ArcadeDB's Bolt agent
        ("", False),
        ("Neo4j/dev", False),
    ],
)
def test_only_calendar_releases_from_2026_have_the_search_clause(
    agent: str, expected: bool
) -> None:
    assert has_search_clause(agent) is expected


def test_vector_indexes_keep_full_vectors_and_only_the_filtered_one_is_cypher_25() -> None:
    plain = neo4j_vector_index_ddl("memory_embedding", "Memory", 384)
    filtered = neo4j_vector_index_ddl("memory_embedding", "Memory", 384, user_filter=True)
    for ddl in (plain, filtered):
        assert "`vector.quantization.enabled`: false" in ddl
        assert "`vector.dimensions`: 384" in ddl
    assert not plain.startswith("CYPHER 25")
    assert "WITH [" not in plain
    assert filtered.startswith("CYPHER 25 ")
    assert "WITH [n.user_id]" in filtered
