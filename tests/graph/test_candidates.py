"""A search plan executed against the graph: the index path falls back to the exact scan."""

from __future__ import annotations

from graph.store import GraphStore
from hippograph.models import IndexedText, MemoryFilter, Sources
from hippograph.modes import SearchMode
from hippograph.scoring import SearchMethod
from hippograph.search_plan import Counts, plan_search
from hippograph.services.candidates import nearest
from hippograph.settings import SearchSettings
from tests.support import T0, add_user, memory, unit_vector


async def _fill(store: GraphStore, user_id: str, count: int, offset: int) -> None:
    await add_user(store, user_id)
    for i in range(count):
        record = memory(user_id, f"{user_id} memory {i}")
        await store.memories.add(
            record, IndexedText(unit_vector(offset + i), f"{user_id} memory"), Sources()
        )


async def test_an_index_too_small_for_the_pool_falls_back_to_the_exact_scan(
    store: GraphStore,
) -> None:
    await _fill(store, "ann", 30, 0)
    await _fill(store, "bob", 30, 1000)
    plan = plan_search(
        user_id="ann",
        units=False,
        method=SearchMethod.VECTOR,
        mode=SearchMode.REVIEW,
        terms=[],
        memory_filter=MemoryFilter(),
        now=T0,
        top_k=15,
        candidates=15,
        radius=None,
        counts=Counts(owned=30, total=60),
        index_scoped=store.search.scoped_vector_index(),
        # Ten index neighbours can never hold fifteen of ann's: the exact scan answers.
        settings=SearchSettings(exact_scan_max=0, max_index_candidates=10),
    )
    assert plan.vector.index_sizes == (10,)
    query = unit_vector(7)
    served = await nearest(store.search, plan, query)
    exact = await store.search.vector_exact("ann", query, 15, plan.memory_filter, T0)
    assert len(served) == 15
    assert [h.id for h in served] == [h.id for h in exact]
