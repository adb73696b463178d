"""search over HTTP: methods, strategies, modes, filters, fallback, touch, MemUnits."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.testclient import TestClient

from graph.store import GraphStore
from hippograph.ids import IdKind, new_id
from hippograph.models import IndexedText, Memory, MemoryKind, MemUnit, Sources
from hippograph.text import search_text
from hippograph.vector_math import unit
from tests.api.conftest import Api, add_memory, group_memorize, seed_user
from tests.api.test_memorize import MEMORIZE

SEARCH = """
query($q: String!, $method: SearchMethod!, $scoring: ScoringInput, $mode: SearchMode!,
      $filter: MemoryFilterInput, $radius: Float, $touch: Boolean!, $target: SearchTarget!,
      $topK: Int!, $candidates: Int!) {
  search(userId: "ann", query: $q, method: $method, scoring: $scoring, mode: $mode,
         filter: $filter, radius: $radius, touch: $touch, target: $target, topK: $topK,
         candidates: $candidates) {
    method strategy mode fallback touched period { label month start end }
    hits {
      score similarity level
      node { __typename id }
      memory { id content kind accessCount }
      memUnit { id summary }
      breakdown { semantic keyword relevance context timeMatch fused recency importance final
                  vectorRank keywordRank methods fallback }
    }
  }
}"""


def search(api: Api, q: str, **overrides: Any) -> dict[str, Any]:
    variables = {
        "q": q,
        "method": "HYBRID",
        "scoring": None,
        "mode": "AUTO",
        "filter": None,
        "radius": None,
        "touch": False,
        "target": "MEMORY",
        "topK": 10,
        "candidates": 50,
    } | overrides
    result: dict[str, Any] = api.ok(SEARCH, variables)["search"]
    return result


def store_of(client: TestClient) -> GraphStore:
    store: GraphStore = client.app.state.runtime.connection.store  # type: ignore[attr-defined]
    return store


@pytest.fixture
def ann(api: Api) -> dict[str, str]:
    _, messages = seed_user(api, "ann", ["I love espresso", "My dog is called Rex"])
    return {
        "coffee": add_memory(api, "ann", "Ann drinks espresso every morning", messages[:1]),
        "dog": add_memory(api, "ann", "Ann's dog Rex likes the park", messages[1:]),
        "tea": add_memory(api, "ann", "Ann dislikes green tea"),
    }


def test_hybrid_explains_every_hit(api: Api, ann: dict[str, str]) -> None:
    result = search(api, "what coffee does she drink")
    assert (result["method"], result["strategy"], result["mode"]) == (
        "HYBRID",
        "WEIGHTED",
        "NORMAL",
    )
    top = result["hits"][0]
    assert top["memory"]["id"] == ann["coffee"]
    b = top["breakdown"]
    assert set(b["methods"]) == {"VECTOR", "KEYWORD"}
    assert (b["vectorRank"], b["keywordRank"]) == (1, 1)
    assert b["relevance"] == pytest.approx(0.6 * b["semantic"] + 0.4 * b["keyword"])
    assert b["final"] == pytest.approx(
        0.5 * b["fused"] + 0.2 * b["recency"] + 0.3 * b["importance"]
    )
    assert top["score"] == b["final"]
    scores = [h["score"] for h in result["hits"]]
    assert scores == sorted(scores, reverse=True)


def test_each_method_alone(api: Api, ann: dict[str, str]) -> None:
    keyword = search(api, "espresso", method="KEYWORD")
    assert [h["memory"]["id"] for h in keyword["hits"]] == [ann["coffee"]]
    assert keyword["hits"][0]["breakdown"]["semantic"] is None
    vector = search(api, "a pet animal", method="VECTOR")
    assert vector["hits"][0]["memory"]["id"] == ann["dog"]
    assert all(h["breakdown"]["keyword"] is None for h in vector["hits"])


def test_weights_and_strategies_apply_per_request(api: Api, ann: dict[str, str]) -> None:
    pure = search(api, "espresso", scoring={"alpha": 1.0, "beta": 0.0, "gamma": 0.0})
    assert all(h["score"] == pytest.approx(h["breakdown"]["fused"]) for h in pure["hits"])
    rrf = search(api, "espresso", scoring={"strategy": "RRF"})
    assert rrf["strategy"] == "RRF"
    assert rrf["hits"][0]["breakdown"]["relevance"] == pytest.approx(1.0)
    multiplicative = search(api, "espresso", scoring={"strategy": "MULTIPLICATIVE"})
    b = multiplicative["hits"][0]["breakdown"]
    assert b["final"] == pytest.approx(
        (0.8 * b["fused"] + 0.2 * b["recency"]) * (0.8 + 0.4 * b["importance"])
    )


def test_radius_too_tight_falls_back_to_keywords_at_half_relevance(
    api: Api, ann: dict[str, str]
) -> None:
    result = search(api, "espresso", radius=0.999)
    assert result["fallback"] is True
    assert [h["memory"]["id"] for h in result["hits"]] == [ann["coffee"]]
    assert result["hits"][0]["breakdown"]["relevance"] == 0.5
    assert result["hits"][0]["breakdown"]["fallback"] is True


def test_touch_marks_returned_memories_recalled(api: Api, ann: dict[str, str]) -> None:
    assert search(api, "espresso", touch=False)["touched"] is False
    count = "query($id: ID!) { memory(id: $id) { accessCount lastAccessedAt } }"
    before = api.ok(count, {"id": ann["coffee"]})["memory"]
    result = search(api, "espresso", touch=True, topK=1)
    assert result["touched"] is True
    after = api.ok(count, {"id": ann["coffee"]})["memory"]
    assert after["accessCount"] == before["accessCount"] + 1
    assert after["lastAccessedAt"] > before["lastAccessedAt"]


def _set(client: TestClient, memory_id: str, **changes: Any) -> None:
    """Change stored fields directly (levels and consolidation have no mutation yet)."""

    async def update() -> None:
        await store_of(client).memories.update(memory_id, changes, datetime.now(UTC))

    client.portal.call(update)  # type: ignore[union-attr]


def test_normal_mode_hides_faded_memories_and_review_shows_them(
    api: Api, client: TestClient, ann: dict[str, str]
) -> None:
    _set(client, ann["dog"], level="trace")
    normal = search(api, "Ann's dog Rex", mode="NORMAL")
    assert ann["dog"] not in [h["memory"]["id"] for h in normal["hits"]]
    review = search(api, "Ann's dog Rex", mode="REVIEW")
    assert review["hits"][0]["memory"]["id"] == ann["dog"]
    assert review["hits"][0]["level"] == "TRACE"
    auto = search(api, "what did Ann's dog do back then?")
    assert auto["mode"] == "REVIEW"
    assert ann["dog"] in [h["memory"]["id"] for h in auto["hits"]]
    assert search(api, "我以前的狗叫什么")["mode"] == "REVIEW"
    # A filter for the faded level asks to review: those, and only those.
    traced = search(api, "Ann's dog Rex", filter={"levels": ["TRACE"]})
    assert traced["mode"] == "REVIEW"
    assert [h["level"] for h in traced["hits"]] == ["TRACE"]
    assert traced["hits"][0]["memory"]["id"] == ann["dog"]


def test_filters_narrow_both_sides(api: Api, client: TestClient, ann: dict[str, str]) -> None:
    _set(client, ann["tea"], consolidated=True)
    assert ann["tea"] not in [h["memory"]["id"] for h in search(api, "green tea")["hits"]]
    with_consolidated = search(api, "green tea", filter={"includeConsolidated": True})
    assert with_consolidated["hits"][0]["memory"]["id"] == ann["tea"]
    only_important = search(api, "Ann", filter={"minImportance": 0.9})
    assert only_important["hits"] == []
    events = search(api, "Ann", filter={"kinds": ["EVENT"]})
    assert events["hits"] == []
    future = search(api, "Ann", filter={"createdAfter": "2999-01-01T00:00:00+00:00"})
    assert future["hits"] == []


def test_a_named_period_favours_memories_from_it(
    api: Api, client: TestClient, ann: dict[str, str]
) -> None:
    old = datetime(2023, 10, 13, 12, tzinfo=UTC)

    async def add_dated() -> str:
        record = Memory(
            id=new_id(IdKind.MEMORY, old),
            user_id="ann",
            kind=MemoryKind.EVENT,
            content="Ann painted a sunset",
            importance=0.5,
            created_at=old,
            # learned today about 2023 (as an import is): recency is not what is tested
            last_accessed_at=datetime.now(UTC),
        )
        vector = (await client.app.state.runtime.embedder.embed([record.content]))[0]  # type: ignore[attr-defined]
        await store_of(client).memories.add(
            record, IndexedText(vector, search_text(record.content)), Sources()
        )
        return record.id

    dated = client.portal.call(add_dated)  # type: ignore[union-attr]
    result = search(api, "What did Ann paint on October 13, 2023?")
    assert result["period"]["label"] == "october 13, 2023"
    top = result["hits"][0]
    assert top["memory"]["id"] == dated
    assert top["breakdown"]["timeMatch"] == pytest.approx(0.1)


def test_memunits_can_be_the_target(api: Api, client: TestClient, ann: dict[str, str]) -> None:
    session = api.ok('{ user(id: "ann") { sessions { edges { node { id } } } } }')["user"][
        "sessions"
    ]["edges"][0]["node"]["id"]

    async def add_unit() -> str:
        unit = MemUnit(
            id=new_id(IdKind.MEMUNIT, datetime.now(UTC)),
            user_ids=("ann",),
            session_id=session,
            summary="Ann talked about her espresso habit",
            narrative="",
            subject="coffee",
            ts=datetime.now(UTC),
        )
        vector = (await client.app.state.runtime.embedder.embed([unit.summary]))[0]  # type: ignore[attr-defined]
        await store_of(client).memunits.add(
            unit, IndexedText(vector, search_text(unit.summary)), []
        )
        return unit.id

    unit_id = client.portal.call(add_unit)  # type: ignore[union-attr]
    result = search(api, "espresso", target="MEMUNIT")
    assert [h["memUnit"]["id"] for h in result["hits"]] == [unit_id]
    assert result["hits"][0]["memory"] is None
    assert result["hits"][0]["node"] == {"__typename": "MemUnit", "id": unit_id}


def test_equal_scores_are_ordered_by_id(api: Api, ann: dict[str, str]) -> None:
    twins = sorted(
        [
            add_memory(api, "ann", "identical twin text"),
            add_memory(api, "ann", "identical twin text"),
        ]
    )
    # recency off: the twins were written a few milliseconds apart
    result = search(api, "identical twin text", scoring={"beta": 0.0})
    ids = [h["memory"]["id"] for h in result["hits"][:2]]
    assert ids == twins


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"candidates": 0}, "candidates"),
        ({"candidates": 100000}, "candidates"),
        ({"radius": 2.0}, "radius"),
        ({"scoring": {"alpha": 1.5}}, "scoring.alpha"),
        ({"scoring": {"decayRate": 0.0}}, "scoring.decayRate"),
        ({"scoring": {"rrfK": 0}}, "scoring.rrfK"),
        ({"scoring": {"vectorWeight": -0.1}}, "scoring.vectorWeight"),
        ({"scoring": {"summaryWeight": 1.2}}, "scoring.summaryWeight"),
        ({"scoring": {"rrfK": 1001}}, "scoring.rrfK"),
        ({"target": "MEMUNIT", "filter": {"kinds": ["EVENT"]}}, "filter"),
        # MemUnits are never consolidated, superseded or soft-deleted, and have no level.
        ({"target": "MEMUNIT", "filter": {"includeDeleted": True}}, "filter"),
        ({"target": "MEMUNIT", "filter": {"includeSuperseded": True}}, "filter"),
        ({"target": "MEMUNIT", "mode": "REVIEW"}, "mode"),
        ({"filter": {"minImportance": 3.0}}, "filter.minImportance"),
        ({"filter": {"kinds": []}}, "filter.kinds"),
        ({"filter": {"levels": []}}, "filter.levels"),
        ({"filter": {"categories": []}}, "filter.categories"),
        ({"mode": "NORMAL", "filter": {"levels": ["TRACE"]}}, "filter.levels"),
        ({"method": "KEYWORD", "radius": 0.5}, "radius"),
    ],
)
def test_bad_search_arguments_are_clear_errors(
    api: Api, ann: dict[str, str], overrides: dict[str, Any], field: str
) -> None:
    variables = {
        "q": "espresso",
        "method": "HYBRID",
        "scoring": None,
        "mode": "AUTO",
        "filter": None,
        "radius": None,
        "touch": True,
        "target": "MEMORY",
        "topK": 10,
        "candidates": 50,
    } | overrides
    body = api.post(SEARCH, variables)
    assert body["errors"][0]["extensions"] == {"code": "BAD_USER_INPUT", "field": field}
    count = api.ok("query($id: ID!) { memory(id: $id) { accessCount } }", {"id": ann["coffee"]})
    assert count["memory"]["accessCount"] == 0  # a refused search touches nothing


def test_the_turn_after_a_matched_question_joins_the_hits_through_context(api: Api) -> None:
    # The answer shares no word and little meaning with the query: only the
    # question before it matches. Neither side finds it among 3 candidates.
    texts = [
        "Cats are independent pets",
        "What is the name of your dog?",
        "Ha, Waffles.",
        "I adopted a kitten last year",
        "Pets make people happier",
        "The vet is open on Saturdays",
        "Hamsters are small pets",
    ]
    _, messages = seed_user(api, "ann", texts)
    ids = [add_memory(api, "ann", t, [m]) for t, m in zip(texts, messages, strict=True)]
    question, answer = ids[1], ids[2]
    query = "What is the name of your dog?"
    alone = search(api, query, topK=3, candidates=3, scoring={"contextWeight": 0})
    assert question in [h["memory"]["id"] for h in alone["hits"]]
    assert answer not in [h["memory"]["id"] for h in alone["hits"]]
    found = search(api, query, topK=3, candidates=3)
    by_id = {h["memory"]["id"]: h["breakdown"] for h in found["hits"]}
    assert answer in by_id
    # it came by context: neither side ranked it, the question lent it relevance
    assert by_id[answer]["methods"] == []
    assert by_id[answer]["context"] == pytest.approx(0.35 * by_id[question]["relevance"])
    # a radius bounds what context brings in too
    tight = search(api, query, topK=3, candidates=3, radius=0.9)
    assert [h["memory"]["id"] for h in tight["hits"]] == [question]


def test_a_period_the_memory_names_matches_the_period_asked_for(api: Api) -> None:
    seed_user(api, "ann", ["hello"])
    moved = add_memory(api, "ann", "Ann moved to Lisbon in March 2021")
    other = add_memory(api, "ann", "Ann moved her desk to the window")
    shown = api.ok("query($id: ID!) { memory(id: $id) { aboutStart aboutEnd } }", {"id": moved})[
        "memory"
    ]
    assert shown == {
        "aboutStart": "2021-03-01T00:00:00+00:00",
        "aboutEnd": "2021-04-01T00:00:00+00:00",
    }
    # said today, about March 2021: the period matches what the text names
    result = search(api, "Where did Ann move in March 2021?")
    by_id = {h["memory"]["id"]: h["breakdown"] for h in result["hits"]}
    assert by_id[moved]["timeMatch"] == pytest.approx(0.1)
    assert by_id[other]["timeMatch"] == 0.0
    # a question asking when favours the memory that names a time
    when = search(api, "When did Ann move?")
    assert when["period"] is None
    by_id = {h["memory"]["id"]: h["breakdown"] for h in when["hits"]}
    assert by_id[moved]["timeMatch"] == pytest.approx(0.1)
    assert by_id[other]["timeMatch"] == 0.0


def test_the_vector_side_weighs_the_speakers_names_down_without_dropping_them(
    api: Api, client: TestClient, ann: dict[str, str]
) -> None:
    # Ann is the user and the speaker of her messages: her name says little
    # about which of her memories a question wants, so the vector side
    # searches with the mean of the query without it and as asked
    # (hippograph/query_names.py); the keyword side reads it whole.
    embedder = client.app.state.runtime.embedder  # type: ignore[attr-defined]
    content = "Ann drinks espresso every morning"

    async def cosines() -> tuple[float, float, float]:
        without, within = await embedder.embed_queries(
            ["What coffee does drink?", "What coffee does Ann drink?"]
        )
        [stored] = await embedder.embed([content])
        mean = unit([a + b for a, b in zip(without, within, strict=True)])
        return tuple(  # type: ignore[return-value]
            float(sum(p * q for p, q in zip(v, stored, strict=True)))
            for v in (without, within, mean)
        )

    without, within, mean = asyncio.run(cosines())
    assert abs(without - within) > 1e-3  # the name moves the vector
    hits = {h["memory"]["id"]: h for h in search(api, "What coffee does Ann drink?")["hits"]}
    coffee = hits[ann["coffee"]]
    assert coffee["similarity"] == pytest.approx(mean, abs=1e-3)
    coffee = coffee["breakdown"]
    assert coffee["keyword"] is not None  # "Ann" and "drink" still match the words


def test_what_one_message_became_is_one_hit(api: Api) -> None:
    # "My favourite colour is green" becomes an event, a fact and a profile
    # attribute: three memories, one hit.
    session, _ = seed_user(api, "ann", ["hello"])
    said = [
        "My favourite colour is green and I paint every weekend.",
        "I also love hiking in the Alps with my brother.",
    ]
    messages = [{"speaker": "Ann", "content": text} for text in said]
    memorized = api.ok(
        MEMORIZE, {"input": {"userIds": ["ann"], "sessionId": session, "messages": messages}}
    )["memorize"]
    assert memorized["__typename"] == "Memorized", memorized
    listed = api.ok(
        'query { memories(userId: "ann", first: 50) { edges { node { id kind '
        "derivedFrom { __typename id } } } } }"
    )["memories"]["edges"]
    source = {
        e["node"]["id"]: next(
            (d["id"] for d in e["node"]["derivedFrom"] if d["__typename"] == "Message"), None
        )
        for e in listed
    }
    made = [s for s in source.values() if s is not None]
    assert len(made) > len(set(made))  # a message became more than one memory
    hits = search(api, "What is Ann's favourite colour?", topK=5)["hits"]
    sources = [source.get(h["memory"]["id"]) for h in hits]
    stated = [s for s in sources if s is not None]
    assert stated
    assert len(stated) == len(set(stated)), hits


def test_a_guest_finds_a_group_memunit_kept_in_its_owners_session(api: Api) -> None:
    group_memorize(
        api,
        [
            {"speaker": "Bob", "content": "I adopted a greyhound called Pixel last weekend."},
            {"speaker": "Ann", "content": "Greyhounds are lovely, Pixel is a great name."},
        ],
    )
    # Ann owns no MemUnit of her own: the unit is Bob's session's, shared with
    # her, and each side finds it (the vector side fell back to keywords).
    for method, rank in (("VECTOR", "vectorRank"), ("KEYWORD", "keywordRank")):
        hits = search(api, "greyhound Pixel", target="MEMUNIT", method=method)["hits"]
        assert hits, method
        assert "Pixel" in hits[0]["memUnit"]["summary"], (method, hits)
        assert hits[0]["breakdown"][rank] == 1, hits[0]
        assert not hits[0]["breakdown"]["fallback"], hits[0]


def test_a_radius_bounds_keyword_hits_as_it_bounds_vector_hits(
    api: Api, ann: dict[str, str]
) -> None:
    add_memory(api, "ann", "Tax form 42 mentions espresso machine depreciation")
    everything = search(api, "espresso", scoring={"beta": 0.0})["hits"]
    cosines = sorted(h["similarity"] for h in everything if h["similarity"] is not None)
    assert len(cosines) >= 2
    radius = (cosines[-1] + cosines[-2]) / 2
    bounded = search(api, "espresso", radius=radius)["hits"]
    assert bounded
    assert all(h["similarity"] >= radius for h in bounded), bounded
