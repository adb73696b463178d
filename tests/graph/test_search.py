"""Vector candidates: the exact path and the index path agree, and stay inside one user."""

from __future__ import annotations

import pytest

from graph.store import GraphStore
from hippograph.models import IndexedText, MemoryFilter, MemoryKind, Sources
from tests.support import T0, add_user, memory, unit_vector


async def _fill(store: GraphStore, user_id: str, count: int, offset: int) -> list[str]:
    await add_user(store, user_id)
    ids = []
    for i in range(count):
        record = memory(
            user_id,
            f"{user_id} memory {i}",
            kind=MemoryKind.EVENT if i % 3 == 0 else MemoryKind.SEMANTIC,
        )
        await store.memories.add(
            record, IndexedText(unit_vector(offset + i), f"{user_id} memory"), Sources()
        )
        ids.append(record.id)
    return ids


async def test_exact_search_ranks_by_cosine_within_the_user(store: GraphStore) -> None:
    ann = await _fill(store, "ann", 30, 0)
    await _fill(store, "bob", 30, 1000)
    query = unit_vector(7)
    hits = await store.search.vector_exact("ann", query, 5, MemoryFilter(), T0)
    assert hits[0].id == ann[7]
    assert abs((hits[0].similarity or 0.0) - 1.0) < 1e-5
    assert {h.id for h in hits} <= set(ann)
    similarities = [h.similarity or 0.0 for h in hits]
    assert similarities == sorted(similarities, reverse=True)


async def test_a_users_memory_vectors_are_theirs_as_filtered(store: GraphStore) -> None:
    ann = await _fill(store, "ann", 30, 0)
    await _fill(store, "bob", 30, 1000)
    only_events = MemoryFilter(kinds=(MemoryKind.EVENT,))
    stored = dict(await store.search.memory_vectors("ann", only_events, T0))
    assert set(stored) == {i for n, i in enumerate(ann) if n % 3 == 0}
    for n in (0, 9):
        assert max(abs(a - b) for a, b in zip(stored[ann[n]], unit_vector(n), strict=True)) < 1e-6
    assert len(await store.search.memory_vectors("ann", MemoryFilter(), T0)) == 30
    assert await store.search.memory_vectors("nobody", MemoryFilter(), T0) == []


async def test_index_search_finds_what_the_exact_scan_finds(store: GraphStore) -> None:
    ann = await _fill(store, "ann", 60, 0)
    await _fill(store, "bob", 60, 1000)
    for seed in (3, 17, 42):
        query = unit_vector(seed)
        exact = await store.search.vector_exact("ann", query, 10, MemoryFilter(), T0)
        index = await store.search.vector_index("ann", query, 120, MemoryFilter(), T0)
        assert {h.id for h in index} <= set(ann)
        assert [h.id for h in index[:10]] == [h.id for h in exact]
        for a, b in zip(index, exact, strict=False):
            assert abs((a.similarity or 0.0) - (b.similarity or 0.0)) < 1e-4


async def test_filters_apply_on_both_paths(store: GraphStore) -> None:
    ann = await _fill(store, "ann", 30, 0)
    only_events = MemoryFilter(kinds=(MemoryKind.EVENT,))
    exact = await store.search.vector_exact("ann", unit_vector(1), 50, only_events, T0)
    index = await store.search.vector_index("ann", unit_vector(1), 60, only_events, T0)
    events = {i for n, i in enumerate(ann) if n % 3 == 0}
    assert {h.id for h in exact} == events == {h.id for h in index}


async def test_vectors_come_back_as_float32_whatever_the_server(store: GraphStore) -> None:
    # ArcadeDB stores ARRAY_OF_FLOATS as float32: the store rounds every vector
    # to float32 before writing, so a search with the original float64 vector
    # still scores its own memory at cosine 1 on both servers.
    await add_user(store, "ann")
    vector = [0.1 + i * 1e-9 for i in range(384)]
    record = memory("ann", "precise")
    await store.memories.add(record, IndexedText(vector, "precise"), Sources())
    [hit] = await store.search.vector_exact("ann", vector, 1, MemoryFilter(), T0)
    assert hit.id == record.id
    assert abs((hit.similarity or 0.0) - 1.0) < 1e-6


async def _add_text(
    store: GraphStore, user_id: str, content: str, seed: int, kind: MemoryKind = MemoryKind.SEMANTIC
) -> str:
    from hippograph.text import search_text

    record = memory(user_id, content, kind=kind)
    await store.memories.add(
        record, IndexedText(unit_vector(seed), search_text(content)), Sources()
    )
    return record.id


async def test_keyword_search_is_bm25_scoped_to_the_user(store: GraphStore) -> None:
    await add_user(store, "ann")
    await add_user(store, "bob")
    ann_coffee = await _add_text(store, "ann", "I drink coffee every morning", 1)
    await _add_text(store, "ann", "I walk the dog", 2)
    await _add_text(store, "bob", "coffee coffee coffee", 3)
    hits = await store.search.keyword("ann", ["coffe"], 10, MemoryFilter(), T0)
    assert [h.id for h in hits] == [ann_coffee]
    assert (hits[0].keyword_score or 0) > 0
    assert hits[0].similarity is None  # no query vector given


async def test_chinese_phrases_find_the_words_inside_them(store: GraphStore) -> None:
    from hippograph.text import query_terms

    await add_user(store, "ann")
    coffee = await _add_text(store, "ann", "咖啡", 1)
    await _add_text(store, "ann", "我喜欢喝茶", 2)
    hits = await store.search.keyword("ann", query_terms("我喜欢喝咖啡"), 10, MemoryFilter(), T0)
    assert hits[0].id == coffee
    phrase = await _add_text(store, "ann", "我喜欢喝咖啡", 3)
    found = await store.search.keyword("ann", query_terms("咖啡"), 10, MemoryFilter(), T0)
    assert {h.id for h in found} >= {coffee, phrase}


async def test_keyword_hits_respect_filters_and_get_their_cosine_by_id(store: GraphStore) -> None:
    await add_user(store, "ann")
    event = await _add_text(store, "ann", "coffee at the station", 5, kind=MemoryKind.EVENT)
    await _add_text(store, "ann", "coffee with milk", 6)
    hits = await store.search.keyword(
        "ann", ["coffe"], 10, MemoryFilter(kinds=(MemoryKind.EVENT,)), T0
    )
    assert [h.id for h in hits] == [event]
    assert hits[0].similarity is None
    cosines = await store.search.cosines([event], unit_vector(5))
    assert abs(cosines[event] - 1.0) < 1e-5


async def test_touch_marks_memories_recalled(store: GraphStore) -> None:
    from datetime import timedelta

    await add_user(store, "ann")
    memory_id = await _add_text(store, "ann", "x", 1)
    later = T0 + timedelta(days=2)
    assert await store.search.touch([memory_id], later)
    assert await store.search.touch([memory_id], later)
    touched = (await store.memories.get_memories([memory_id]))[memory_id]
    assert (touched.last_accessed_at, touched.access_count) == (later, 2)


async def test_memunits_are_searched_by_vector_and_keyword(store: GraphStore) -> None:
    from tests.support import add_memunit, conversation

    session, messages = await conversation(store, "ann", ["a", "b"])
    unit = await add_memunit(store, session, messages, seed=9)
    exact = await store.search.unit_vector_exact("ann", unit_vector(9), 5, MemoryFilter())
    index = await store.search.unit_vector_index("ann", unit_vector(9), 10, MemoryFilter())
    assert [h.id for h in exact] == [h.id for h in index] == [unit.id]
    words = await store.search.unit_keyword("ann", ["summari"], 5, MemoryFilter())
    assert [h.id for h in words] == [unit.id]
    assert await store.search.unit_vector_exact("bob", unit_vector(9), 5, MemoryFilter()) == []
    assert await store.search.count_units("ann") == 1
    assert await store.search.count_units(None) == 1
    # A keyword hit of a MemUnit gets its cosine by id, as a memory's does.
    cosines = await store.search.unit_cosines(
        [unit.id, "mu_01HZZZZZZZZZZZZZZZZZZZZZZZ"], unit_vector(9)
    )
    assert list(cosines) == [unit.id]
    assert abs(cosines[unit.id] - 1.0) < 1e-5
    assert await store.search.unit_cosines([], unit_vector(9)) == {}


async def test_a_guest_finds_a_group_memunit_in_its_owners_session_on_every_path(
    store: GraphStore,
) -> None:
    from tests.support import add_memunit, conversation

    group, said = await conversation(store, "ann", ["hi mel", "hi ann"])
    shared = await add_memunit(store, group, said[:1], seed=3, guests=["mel"])
    annes = await add_memunit(store, group, said[1:], seed=4)
    own_session, own_said = await conversation(store, "mel", ["note to self"])
    mels = await add_memunit(store, own_session, own_said, seed=5)

    everything = MemoryFilter()
    for user, expected in (("mel", {shared.id, mels.id}), ("ann", {shared.id, annes.id})):
        exact = await store.search.unit_vector_exact(user, unit_vector(3), 10, everything)
        index = await store.search.unit_vector_index(user, unit_vector(3), 10, everything)
        assert {h.id for h in exact} == {h.id for h in index} == expected, user
        assert exact[0].id == shared.id
        assert await store.search.count_units(user) == 2
    in_group = MemoryFilter(session_id=group.id)
    exact = await store.search.unit_vector_exact("mel", unit_vector(5), 10, in_group)
    assert [h.id for h in exact] == [shared.id]
    assert await store.search.unit_vector_exact("bob", unit_vector(3), 10, everything) == []
    assert await store.search.count_units("bob") == 0


async def test_a_term_sample_is_the_indexed_text_of_the_users_memories(store: GraphStore) -> None:
    # What large users' keyword queries prune common terms with
    # (hippograph/services/common_terms.py).
    from hippograph.text import search_text

    await add_user(store, "ann")
    await add_user(store, "bob")
    contents = ["Ann drinks coffee", "Ann climbs on Saturdays", "Ann reads at night"]
    for seed, content in enumerate(contents):
        await _add_text(store, "ann", content, seed)
    await _add_text(store, "bob", "Bob sails", 9)
    sample = await store.search.sample_search_text("ann", 10)
    assert sorted(sample) == sorted(search_text(c) for c in contents)
    assert len(await store.search.sample_search_text("ann", 2)) == 2
    assert await store.search.sample_search_text("nobody", 10) == []


async def test_candidates_carry_what_ranking_reads_unchanged_on_every_path(
    store: GraphStore,
) -> None:
    # Candidates travel as one list of rows with datetimes as text (see
    # graph/search.py): every path must still hand ranking the exact values.
    from dataclasses import replace
    from datetime import timedelta

    from hippograph.text import search_text

    await add_user(store, "ann")
    created = T0 + timedelta(microseconds=123457)
    accessed = created + timedelta(days=3, seconds=1, microseconds=5)
    record = replace(
        memory("ann", "coffee at dawn", at=created, importance=0.35, session_id="ses_one", seq=7),
        last_accessed_at=accessed,
    )
    await store.memories.add(
        record, IndexedText(unit_vector(4), search_text(record.content)), Sources()
    )
    query = unit_vector(4)
    found = [
        *await store.search.vector_exact("ann", query, 1, MemoryFilter(), T0),
        *await store.search.vector_index("ann", query, 10, MemoryFilter(), T0),
        *await store.search.keyword("ann", ["coffe"], 5, MemoryFilter(), T0),
    ]
    assert len(found) == 3
    for hit in found:
        assert (hit.id, hit.importance, hit.session_id, hit.seq) == (record.id, 0.35, "ses_one", 7)
        assert (hit.created_at, hit.last_accessed_at) == (created, accessed)
        assert hit.created_at.tzinfo is not None
    # Keyword hits carry no cosine: it comes from cosines() once the query is embedded.
    assert [h.similarity for h in found[2:]] == [None]
    for hit in found[:2]:
        assert abs((hit.similarity or 0.0) - 1.0) < 1e-5
    cosines = await store.search.cosines([record.id, "mem_missing"], query)
    assert list(cosines) == [record.id]
    assert abs(cosines[record.id] - 1.0) < 1e-5
    assert await store.search.cosines([], query) == {}
    assert await store.search.vector_exact("bob", query, 5, MemoryFilter(), T0) == []


async def test_neighbours_are_the_user_s_memories_at_the_positions_asked(
    store: GraphStore,
) -> None:
    from hippograph.text import search_text

    await add_user(store, "ann")
    await add_user(store, "bob")
    placed = {}
    for seq in (3, 4, 5, 9):
        record = memory("ann", f"turn {seq}", session_id="ses_one", seq=seq)
        await store.memories.add(
            record, IndexedText(unit_vector(seq), search_text(record.content)), Sources()
        )
        placed[seq] = record.id
    gone = memory("ann", "deleted turn", session_id="ses_one", seq=6, deleted_at=T0)
    await store.memories.add(gone, IndexedText(unit_vector(6), "deleted turn"), Sources())
    # another user's memory that claims the same position never shows
    intruder = memory("bob", "bob turn", session_id="ses_one", seq=4)
    await store.memories.add(intruder, IndexedText(unit_vector(4), "bob turn"), Sources())
    found = await store.search.neighbours(
        "ann", [("ses_one", 4), ("ses_one", 6), ("ses_two", 5)], unit_vector(4), MemoryFilter(), T0
    )
    assert [(c.id, c.session_id, c.seq) for c in found] == [(placed[4], "ses_one", 4)]
    assert abs((found[0].similarity or 0.0) - 1.0) < 1e-5
    both = await store.search.neighbours(
        "ann", [("ses_one", 3), ("ses_one", 5)], unit_vector(4), MemoryFilter(), T0
    )
    assert {c.id for c in both} == {placed[3], placed[5]}
    assert await store.search.neighbours("ann", [], unit_vector(4), MemoryFilter(), T0) == []


async def test_candidates_carry_the_period_a_memory_names(store: GraphStore) -> None:
    from datetime import timedelta

    await add_user(store, "ann")
    start = T0 - timedelta(days=400)
    record = memory("ann", "moved", about_start=start, about_end=start + timedelta(days=1))
    plain = memory("ann", "moved again")
    for seed, m in enumerate((record, plain)):
        await store.memories.add(m, IndexedText(unit_vector(seed), "moved"), Sources())
    hits = await store.search.vector_exact("ann", unit_vector(0), 2, MemoryFilter(), T0)
    about = {h.id: h.about for h in hits}
    assert about == {record.id: (start, start + timedelta(days=1)), plain.id: None}


@pytest.mark.only_on("neo4j-2026", "only Neo4j 2026.01+ filters a vector index by user (SEARCH)")
async def test_a_small_user_among_large_ones_gets_its_exact_nearest_from_the_index(
    store: GraphStore,
) -> None:
    assert store.search.scoped_vector_index()
    small = await _fill(store, "ann", 20, 0)
    await _fill(store, "bob", 400, 1000)
    for seed in (3, 17, 42, 1001):
        query = unit_vector(seed)
        exact = await store.search.vector_exact("ann", query, 10, MemoryFilter(), T0)
        index = await store.search.vector_index("ann", query, 10, MemoryFilter(), T0)
        assert [h.id for h in index] == [h.id for h in exact]
        assert {h.id for h in index} <= set(small)


async def test_speakers_are_those_of_the_user_s_latest_sessions(store: GraphStore) -> None:
    from datetime import timedelta

    from tests.support import add_session, message

    await add_user(store, "ann")
    await add_user(store, "bob")
    for day, speakers in enumerate((["Old Friend"], ["Ann", "Tom"], ["Ann", "Lee"])):
        session = await add_session(store, "ann", T0 + timedelta(days=day))
        lines = [message(session, f"line {i}", speaker=s) for i, s in enumerate(speakers)]
        await store.messages.append(session.id, lines)
    theirs = await add_session(store, "bob", T0 + timedelta(days=9))
    await store.messages.append(theirs.id, [message(theirs, "hi", speaker="Bob")])
    assert await store.search.speakers("ann", 2, 100) == ["Ann", "Lee", "Tom"]
    assert await store.search.speakers("ann", 10, 100) == ["Ann", "Lee", "Old Friend", "Tom"]
    assert len(await store.search.speakers("ann", 10, 1)) == 1
    assert await store.search.speakers("nobody", 10, 100) == []
