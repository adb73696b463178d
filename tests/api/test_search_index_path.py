"""Search on the vector index's path, which users above ``exact_scan_max`` memories take.

Every other search test holds a handful of memories, so the service only
ever took the exact scan; the index's own Cypher is held by
``tests/graph/test_search.py``. Here ``exact_scan_max`` is 0, and every
method and target runs through the service on the index, as a large user's
search does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from graph.search import SearchGraph
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.runtime import Runtime
from hippograph.scoring import SearchMethod
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memorize import MemorizeRequest
from hippograph.services.memory_ops import MemoryOp, MemoryOpKind
from hippograph.services.messages import MessageInput
from hippograph.services.search import SearchRequest, SearchTarget
from hippograph.settings import SearchSettings, Settings
from tests.graphs import TestDatabase
from tests.support import record_calls

FACTS = ["Ann drinks espresso every morning", "Ann's dog Rex likes the park", "Ann sails"]
TALK = [
    ("Ann", "I adopted a greyhound called Pixel last weekend."),
    ("Bob", "Lovely! Does Pixel like the beach?"),
    ("Ann", "She runs along the shore every morning."),
]


@pytest.fixture
async def runtime(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> AsyncIterator[Runtime]:
    settings = Settings(graph=graph_db.settings(tmp_path), search=SearchSettings(exact_scan_max=0))
    started = await Runtime.start(settings, embedder=embedder, **graph_db.start)
    try:
        yield started
    finally:
        await started.stop()


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The vector paths the graph was asked for, in order."""
    paths = ("vector_exact", "vector_index", "unit_vector_exact", "unit_vector_index")
    return record_calls(monkeypatch, SearchGraph, paths)


async def test_every_method_and_target_ranks_from_the_index(
    runtime: Runtime, paths: list[str]
) -> None:
    services = runtime.services
    await services.users.create_user(SETTINGS_ADMIN, "ann", "Ann")
    ops = [MemoryOp(MemoryOpKind.ADD, content=fact) for fact in FACTS]
    await services.memory_ops.apply(SETTINGS_ADMIN, "ann", ops)

    for method in (SearchMethod.VECTOR, SearchMethod.HYBRID):
        # A pool no larger than what the user holds: the index can fill it.
        request = SearchRequest(
            "ann", "what coffee does she drink", top_k=1, method=method, candidates=3, touch=False
        )
        result = await services.search.search(SETTINGS_ADMIN, request)
        assert result.hits[0].memory is not None
        assert result.hits[0].memory.content == FACTS[0], method
    assert paths
    assert set(paths) == {"vector_index"}

    session = await services.users.create_session(SETTINGS_ADMIN, "ann", "chat")
    messages = tuple(MessageInput(speaker=s, content=c) for s, c in TALK)
    await services.memorize.memorize(
        SETTINGS_ADMIN, MemorizeRequest(user_ids=("ann",), session_id=session.id, messages=messages)
    )
    paths.clear()
    units = await runtime.connection.store.search.count_units("ann")
    request = SearchRequest(
        "ann",
        "the greyhound",
        top_k=1,
        method=SearchMethod.VECTOR,
        candidates=units,
        target=SearchTarget.MEMUNIT,
    )
    result = await services.search.search(SETTINGS_ADMIN, request)
    assert result.hits[0].unit is not None
    assert "greyhound" in result.hits[0].unit.summary.lower()
    assert set(paths) == {"unit_vector_index"}
