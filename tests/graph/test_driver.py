"""GraphDriver.query: one read-only statement outside an explicit transaction."""

from __future__ import annotations

from graph.store import GraphStore


async def test_query_reads_every_record_of_one_statement(store: GraphStore) -> None:
    rows = await store.graph.query("UNWIND range(1, $n) AS i RETURN i", {"n": 3})
    assert [r["i"] for r in rows] == [1, 2, 3]


async def test_query_sees_what_a_committed_write_left(store: GraphStore) -> None:
    async def create(tx: object) -> None:
        await tx.run("CREATE (:Probe {id: 'p1'})")  # type: ignore[attr-defined]

    await store.graph.write(create)
    rows = await store.graph.query("MATCH (p:Probe {id: $id}) RETURN p.id AS id", {"id": "p1"})
    assert [r["id"] for r in rows] == ["p1"]
