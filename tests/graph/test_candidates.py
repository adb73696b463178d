"""A search plan executed against the graph: the index path falls back to the exact scan."""

from __future__ import annotations

import pytest

from graph.store import GraphStore
from hippograph.models import IndexedText, MemoryFilter, Sources
from hippograph.modes import SearchMode
from hippograph.scoring import SearchMethod
from hippograph.services.common_terms import CommonTerms
from hippograph.services.search_pipeline import vector
from hippograph.services.search_pipeline.fetcher import CandidateFetcher
from hippograph.services.search_pipeline.plan import Counts, SearchPlan, plan_search
from hippograph.settings import SearchSettings
from tests.support import T0, add_user, memory, unit_vector


async def _fill(store: GraphStore, user_id: str, count: int, offset: int) -> None:
    await add_user(store, user_id)
    for i in range(count):
        record = memory(user_id, f"{user_id} memory {i}")
        await store.memories.add(
            record, IndexedText(unit_vector(offset + i), f"{user_id} memory"), Sources()
        )


def _plan(
    store: GraphStore,
    method: SearchMethod,
    terms: list[str],
    top_k: int,
    counts: Counts,
    settings: SearchSettings,
) -> SearchPlan:
    """The plan of a REVIEW search of ann's memories (as many candidates as ``top_k``)."""
    return plan_search(
        user_id="ann",
        units=False,
        method=method,
        mode=SearchMode.REVIEW,
        terms=terms,
        memory_filter=MemoryFilter(),
        now=T0,
        top_k=top_k,
        candidates=top_k,
        radius=None,
        counts=counts,
        index_scoped=store.search.scoped_vector_index(),
        settings=settings,
    )


async def test_an_index_too_small_for_the_pool_falls_back_to_the_exact_scan(
    store: GraphStore,
) -> None:
    await _fill(store, "ann", 30, 0)
    await _fill(store, "bob", 30, 1000)
    # Ten index neighbours can never hold fifteen of ann's: the exact scan answers.
    settings = SearchSettings(exact_scan_max=0, max_index_candidates=10)
    plan = _plan(store, SearchMethod.VECTOR, [], 15, Counts(owned=30, total=60), settings)
    assert plan.vector.index_sizes == (10,)
    query = unit_vector(7)
    served = await vector.fetch(store.search, plan, query)
    exact = await store.search.vector_exact("ann", query, 15, plan.memory_filter, T0)
    assert len(served) == 15
    assert [h.id for h in served] == [h.id for h in exact]


async def test_a_keyword_hit_a_whole_scan_left_out_gets_its_cosine_after_it(
    store: GraphStore,
) -> None:
    # The cached count says one memory, so the exact scan of one covers the
    # user (VectorPlan.whole) and brings the keyword hits' cosines. Three are
    # there by now: the keyword side's hit is not the scan's, and its cosine
    # is asked for after the scan, on the scan's scale.
    await add_user(store, "ann")
    for i, text in enumerate(["ann memory", "ann memory", "ann zebra"]):
        record = memory("ann", text)
        await store.memories.add(record, IndexedText(unit_vector(i), text), Sources())
    settings = SearchSettings()
    plan = _plan(store, SearchMethod.HYBRID, ["zebra"], 1, Counts(owned=1, total=1), settings)
    assert plan.vector.whole
    common = CommonTerms(
        store.search.sample_search_text,
        share=settings.common_term_share,
        sample_size=settings.term_sample_size,
        ttl_s=settings.term_sample_ttl_s,
    )
    query = unit_vector(0)

    async def embed() -> list[float]:
        return query

    fetched = await CandidateFetcher(store.search, common).fetch(plan, embed)
    [scanned] = fetched.by_vector
    [zebra] = fetched.by_keyword
    assert scanned.id != zebra.id
    expected = sum(a * b for a, b in zip(unit_vector(2), query, strict=True))
    assert zebra.similarity == pytest.approx(expected, abs=1e-4)
