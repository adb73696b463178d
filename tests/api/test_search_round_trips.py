"""What one HYBRID search costs the graph, in round trips, counted at the driver.

A search of a user it has lately seen reads no user record: the key's
access is checked without the graph, and the record is read once per
``count_cache_ttl_s`` (hippograph/services/known_users.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.driver import GraphDriver
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.errors import NotFound
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memory_ops import MemoryOp, MemoryOpKind
from hippograph.services.search import SearchRequest
from hippograph.settings import Settings
from tests.graphs import TestDatabase
from tests.support import record_calls

FACTS = ["Ann lives in Lisbon", "Ann runs the Lisbon marathon in May", "Ann's dog is called Rex"]


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call the graph driver makes, by method, as it happens."""
    return record_calls(monkeypatch, GraphDriver, ("read", "query", "write", "write_once"))


async def test_a_hybrid_search_of_a_known_user_takes_one_round_trip_fewer(
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    tmp_path: Path,
    trips: list[str],
) -> None:
    runtime = await Runtime.start(
        Settings(graph=graph_db.settings(tmp_path)), embedder=embedder, **graph_db.start
    )
    try:
        services = runtime.services
        await services.users.create_user(SETTINGS_ADMIN, "ann", "Ann")
        ops = [MemoryOp(MemoryOpKind.ADD, content=fact) for fact in FACTS]
        await services.memory_ops.apply(SETTINGS_ADMIN, "ann", ops)
        request = SearchRequest(user_id="ann", query="when is the marathon in Lisbon")

        async def cost() -> int:
            trips.clear()
            found = await services.search.search(SETTINGS_ADMIN, request)
            assert found.hits
            return len(trips)

        first = await cost()  # also fills the counts, speakers and user caches
        again = await cost()
        # the keyword side, the vector side (whose exact scan of a small user
        # brings the keyword hits' cosines too), the hits read whole, the
        # touch: no user read (6 before known_users.py, 5 before VectorPlan.whole)
        assert again == 4, trips
        assert trips == ["query"] * 3 + ["write_once"]
        assert first > again
        # A user deleted since is not found, though the search remembered them.
        await services.user_deletion.delete_user(SETTINGS_ADMIN, "ann", dry_run=False)
        with pytest.raises(NotFound):
            await services.search.search(SETTINGS_ADMIN, request)
    finally:
        await runtime.stop()
