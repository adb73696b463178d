"""Forgetting through the API, in simulated time: decay, five levels, deletion by policy."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from starlette.testclient import TestClient

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from hippograph.settings import Settings
from tests.api.conftest import ADMIN_KEY, CREATE_USER, Api, seed_user
from tests.graphs import TestDatabase

T0 = datetime(2026, 1, 1, tzinfo=UTC)
# Note 002's worked example: age in days → weight, level. Day 3000 is where the
# note says 0.003 (archive); its formula says 1/31 = 0.032, which is a trace.
NOTE_002 = {
    1: (0.990, "FULL"),
    30: (0.769, "FULL"),
    100: (0.500, "SUMMARY"),
    300: (0.250, "TAG"),
    1000: (0.091, "TRACE"),
    3000: (0.032, "TRACE"),
}

FORGET = """
mutation($input: ForgetInput!) {
  forget(input: $input) {
    __typename
    ... on ForgetReport {
      dryRun asOf changesTruncated
      counts { scanned exempt unchanged changed promoted fuzzed restored softDeleted
               hardDeleted cascaded batches levelMoves { fromLevel toLevel count } }
      changes { memoryId action weight fromLevel toLevel promoted reason }
    }
    ... on ForgetQueued { job { id status } }
    ... on InputError { field }
    ... on Error { message code }
  }
}"""

OPS = """
mutation($userId: ID!, $ops: [MemoryOpInput!]!) {
  applyMemoryOps(input: {userId: $userId, ops: $ops}) {
    __typename
    ... on MemoryOpsApplied { results { memoryId } }
    ... on Error { message }
  }
}"""

MEMORY = """
query($id: ID!) { memory(id: $id) {
  id content originalContent level category deletedAt
  levelHistory { at fromLevel toLevel }
} }"""

SEARCH = """
query($q: String!, $mode: SearchMode!, $touch: Boolean!) {
  search(userId: "ann", query: $q, mode: $mode, touch: $touch, topK: 50, method: KEYWORD) {
    hits { level memory { id content } }
  }
}"""


class SimClock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def at_day(self, day: float) -> None:
        self.now = T0 + timedelta(days=day)


@pytest.fixture
def clock() -> SimClock:
    return SimClock(T0)


@pytest.fixture
def entities() -> bool:
    """Whether the app keeps the entity graph (a test may parametrize it)."""
    return True


@pytest.fixture
def sim_client(
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    settings: Settings,
    clock: SimClock,
    entities: bool,
) -> Iterator[TestClient]:
    """The app on a fresh database, with time in the test's hands."""
    settings = settings.model_copy(
        update={
            "forgetting": settings.forgetting.model_copy(update={"batch_size": 200}),
            "memorize": settings.memorize.model_copy(update={"entities": entities}),
        }
    )
    app = create_app(settings, embedder=embedder, clock=clock, **graph_db.start)
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def sim(sim_client: TestClient) -> Api:
    return Api(sim_client, ADMIN_KEY)


def add_facts(
    api: Api, texts: list[str], importance: float = 0.5, kind: str = "SEMANTIC"
) -> list[str]:
    ids: list[str] = []
    for start in range(0, len(texts), 100):
        ops = [
            {"op": "ADD", "content": t, "importance": importance, "kind": kind}
            for t in texts[start : start + 100]
        ]
        result = api.ok(OPS, {"userId": "ann", "ops": ops})["applyMemoryOps"]
        assert result["__typename"] == "MemoryOpsApplied", result
        ids.extend(r["memoryId"] for r in result["results"])
    return ids


def forget(api: Api, **fields: Any) -> dict[str, Any]:
    result: dict[str, Any] = api.ok(FORGET, {"input": {"userId": "ann", **fields}})["forget"]
    return result


def memory(api: Api, memory_id: str) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(MEMORY, {"id": memory_id})["memory"]
    return found


def moves(report: dict[str, Any]) -> dict[tuple[str, str], int]:
    return {(m["fromLevel"], m["toLevel"]): m["count"] for m in report["counts"]["levelMoves"]}


@pytest.mark.slow  # one forgetting run per age of the note (23 s here)
def test_note_002_ages_land_on_the_notes_weights_and_levels(sim: Api, clock: SimClock) -> None:
    """1,000 memories at the note's ages; day 3000 is a trace (the formula governs)."""
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    by_age: dict[int, list[str]] = {}
    for n, age in enumerate(NOTE_002):
        clock.at_day(-age)
        texts = [
            f"Ann likes americano number {i} from the cafe on day {age}, no sugar, no milk"
            for i in range(167 if n < 4 else 166)
        ]
        by_age[age] = add_facts(sim, texts)
    everyone = {m for ids in by_age.values() for m in ids}
    assert len(everyone) == 1000
    clock.at_day(0)

    dry = forget(sim, dryRun=True)
    assert dry["__typename"] == "ForgetReport"
    assert dry["dryRun"] is True
    real = forget(sim)
    assert real["counts"] == dry["counts"]  # a real run reports what the dry run did
    assert real["counts"]["scanned"] == len(everyone)
    expected_moves: Counter[tuple[str, str]] = Counter()
    age_of = {m: age for age, ids in by_age.items() for m in ids}
    for age, (_, level) in NOTE_002.items():
        if level != "FULL":
            expected_moves[("FULL", level)] += sum(1 for a in age_of.values() if a == age)
    counts = real["counts"]
    assert moves(real) == dict(expected_moves)
    assert counts["hardDeleted"] == counts["softDeleted"] == 0  # FUZZ never deletes
    for change in real["changes"]:
        weight, level = NOTE_002[age_of[change["memoryId"]]]
        assert change["weight"] == pytest.approx(weight, abs=5e-4)
        assert change["toLevel"] == level

    firsts = {age: memory(sim, ids[0]) for age, ids in by_age.items()}
    original = "Ann likes americano number 0 from the cafe on day {age}, no sugar, no milk"
    for age, (_, level) in NOTE_002.items():
        found = firsts[age]
        assert found["level"] == level, (age, found)
        if level == "FULL":
            assert found["content"] == original.format(age=age)
            assert found["levelHistory"] == []
        else:
            assert found["originalContent"] == original.format(age=age)
            assert found["levelHistory"][0]["fromLevel"] == "FULL"
            assert found["levelHistory"][0]["toLevel"] == level
    assert firsts[100]["content"] == f"Ann likes americano number 0 from the cafe on day {100}"
    assert firsts[300]["content"].startswith("tags: ")
    assert firsts[1000]["content"].startswith("the user once had memories about ")

    again = forget(sim)  # right after: nothing to do
    assert again["counts"]["changed"] == 0
    assert again["changes"] == []
    assert again["counts"]["unchanged"] == len(everyone)


def test_levels_show_in_search_modes_and_recall_restores(sim: Api, clock: SimClock) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    clock.at_day(-400)
    (old,) = add_facts(sim, ["Ann once collected vintage stamps from Portugal"])
    clock.at_day(0)
    (new,) = add_facts(sim, ["Ann collects vinyl records"])
    forget(sim)
    assert memory(sim, old)["level"] == "TAG"

    normal = sim.ok(SEARCH, {"q": "collect", "mode": "NORMAL", "touch": False})["search"]
    assert [h["memory"]["id"] for h in normal["hits"]] == [new]
    review = sim.ok(SEARCH, {"q": "collect", "mode": "REVIEW", "touch": True})["search"]
    levels = {h["memory"]["id"]: h["level"] for h in review["hits"]}
    assert levels == {new: "FULL", old: "TAG"}

    # Recalled (touched) just now: the next pass brings the words back.
    clock.at_day(1)
    report = forget(sim)
    assert report["counts"]["restored"] == 1
    back = memory(sim, old)
    assert back["level"] == "FULL"
    assert back["content"] == "Ann once collected vintage stamps from Portugal"
    assert [c["toLevel"] for c in back["levelHistory"]] == ["TAG", "FULL"]


def test_exempt_unless_named_and_promotion_to_core(sim: Api, clock: SimClock) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    clock.at_day(-500)
    (vital,) = add_facts(sim, ["Ann is allergic to penicillin"], importance=0.97)
    (plain,) = add_facts(sim, ["Ann tried a ramen place downtown"])
    clock.at_day(0)
    report = forget(sim)
    assert report["counts"]["promoted"] == 1
    assert memory(sim, vital)["category"] == "CORE"
    assert memory(sim, vital)["level"] == "FULL"
    assert memory(sim, plain)["level"] == "TAG"
    again = forget(sim)
    assert again["counts"]["exempt"] == 1
    assert again["counts"]["changed"] == 0
    # Named explicitly, a core memory is no longer exempt: it decays as a fact.
    named = forget(sim, memoryIds=[vital], dryRun=True)
    assert named["counts"]["scanned"] == 1
    assert named["counts"]["fuzzed"] == 1


def test_soft_and_hard_deletion_by_policy(sim: Api, clock: SimClock) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    clock.at_day(-200)
    weak = add_facts(sim, ["Ann had pizza on Friday"], importance=0.1)
    old = add_facts(sim, ["Ann visited Rome in spring"], importance=0.6)
    clock.at_day(0)
    keep = add_facts(sim, ["Ann is learning Italian", "Ann has a cat named Olive"], importance=0.8)

    soft = forget(sim, policy="SOFT_DELETE")
    assert soft["counts"]["softDeleted"] == 2, soft  # faded below 0.1 on Ebbinghaus
    assert {c["memoryId"] for c in soft["changes"]} == {weak[0], old[0]}
    assert all(c["reason"] for c in soft["changes"])
    assert memory(sim, weak[0])["deletedAt"] is not None
    assert memory(sim, keep[0])["deletedAt"] is None

    # Capacity: keep the most important one; the soft-deleted go first.
    hard = forget(sim, policy="HARD_DELETE", strategy="CAPACITY_BASED", maxCapacity=1)
    assert hard["counts"]["hardDeleted"] == 3
    gone = {c["memoryId"] for c in hard["changes"]}
    assert gone == {weak[0], old[0], keep[1]} or gone == {weak[0], old[0], keep[0]}
    for memory_id in gone:
        assert sim.ok(MEMORY, {"id": memory_id})["memory"] is None


def test_hard_deletion_takes_what_derives_only_from_the_deleted(sim: Api, clock: SimClock) -> None:
    _, messages = seed_user(sim, "ann", ["I sold my bike"])
    clock.at_day(-100)
    (base,) = add_facts(sim, ["Ann sold her bike"], importance=0.2)
    derived = sim.ok(
        """mutation($input: AddMemoryInput!) { addMemory(input: $input) {
             ... on MemoryPayload { memory { id } } } }""",
        {"input": {"userId": "ann", "content": "Ann has no bike now", "derivedFrom": [base]}},
    )["addMemory"]["memory"]["id"]
    mixed = sim.ok(
        """mutation($input: AddMemoryInput!) { addMemory(input: $input) {
             ... on MemoryPayload { memory { id } } } }""",
        {
            "input": {
                "userId": "ann",
                "content": "Ann sold a bike she got as a gift",
                "derivedFrom": [base, messages[0]],
                "importance": 0.9,
            }
        },
    )["addMemory"]["memory"]["id"]
    clock.at_day(0)
    dry = forget(sim, policy="HARD_DELETE", strategy="IMPORTANCE_BASED", threshold=0.4, dryRun=True)
    queued = forget(
        sim,
        policy="HARD_DELETE",
        strategy="IMPORTANCE_BASED",
        threshold=0.4,
        dryRun=True,
        **{"async": True},
    )
    dry_job = sim.finished_job(
        "query($id: ID!) { job(id: $id) { status forgetCounts { hardDeleted cascaded } } }",
        queued["job"]["id"],
    )
    assert dry_job["forgetCounts"] == {"hardDeleted": 1, "cascaded": 1}, dry_job
    report = forget(sim, policy="HARD_DELETE", strategy="IMPORTANCE_BASED", threshold=0.4)
    assert dry["counts"]["hardDeleted"] == report["counts"]["hardDeleted"] == 1
    # the memory derived only from it: the dry run says so too
    assert dry["counts"]["cascaded"] == report["counts"]["cascaded"] == 1
    assert sim.ok(MEMORY, {"id": base})["memory"] is None
    assert sim.ok(MEMORY, {"id": derived})["memory"] is None
    kept = sim.ok("query($id: ID!) { memory(id: $id) { id derivedFrom { id } } }", {"id": mixed})[
        "memory"
    ]
    assert [n["id"] for n in kept["derivedFrom"]] == [messages[0]]  # no dangling edge

    time_based = forget(sim, policy="HARD_DELETE", strategy="TIME_BASED", maxAgeDays=50)
    assert [c["memoryId"] for c in time_based["changes"]] == [mixed]  # 100 days old
    assert time_based["counts"]["cascaded"] == 0  # the message it came from stays
    assert sim.ok("query($id: ID!) { message(id: $id) { id } }", {"id": messages[0]})["message"]


def test_a_memory_recalled_while_the_run_works_is_kept_and_not_counted(
    sim: Api, sim_client: TestClient, clock: SimClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    recalled, faded = add_facts(sim, ["Ann sold her bike", "Ann once had a kite"], importance=0.2)
    store = sim_client.app.state.runtime.services.forgetting._store  # type: ignore[attr-defined]
    texts = store.texts

    async def recalled_meanwhile(user_id: str, ids: Any) -> Any:
        # After the run read the memories, before it writes their page: a
        # search recalls one of them.
        await sim_client.app.state.runtime.connection.store.search.touch(  # type: ignore[attr-defined]
            [recalled], clock.now
        )
        return await texts(user_id, ids)

    monkeypatch.setattr(store, "texts", recalled_meanwhile)
    report = forget(sim, policy="HARD_DELETE", strategy="IMPORTANCE_BASED", threshold=0.4)
    counts = report["counts"]
    assert (counts["hardDeleted"], counts["changed"], counts["unchanged"]) == (1, 1, 1), report
    assert [c["memoryId"] for c in report["changes"]] == [faded]
    assert memory(sim, recalled)["id"] == recalled
    assert sim.ok(MEMORY, {"id": faded})["memory"] is None


JOB = """query($id: ID!) { job(id: $id) { status error forgetCounts { scanned fuzzed } } }"""


def test_async_run_is_a_job_with_the_same_counts(sim: Api, clock: SimClock) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    clock.at_day(-100)
    add_facts(sim, [f"Ann read book number {i}" for i in range(5)])
    clock.at_day(0)
    dry = forget(sim, dryRun=True)
    queued = forget(sim, **{"async": True})
    assert queued["__typename"] == "ForgetQueued", queued
    deadline = time.monotonic() + 30
    while (job := sim.ok(JOB, {"id": queued["job"]["id"]})["job"])["status"] != "SUCCEEDED":
        assert job["status"] in ("QUEUED", "RUNNING"), job
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert (
        job["forgetCounts"]
        == {"scanned": 5, "fuzzed": dry["counts"]["fuzzed"]}
        == {
            "scanned": 5,
            "fuzzed": 5,
        }
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"policy": "HARD_DELETE"}, "strategy"),
        ({"strategy": "TIME_BASED"}, "strategy"),
        ({"policy": "HARD_DELETE", "strategy": "TIME_BASED"}, "maxAgeDays"),
        ({"policy": "HARD_DELETE", "strategy": "CAPACITY_BASED"}, "maxCapacity"),
        ({"policy": "HARD_DELETE", "strategy": "CAPACITY_BASED", "maxCapacity": -1}, "maxCapacity"),
        ({"policy": "HARD_DELETE", "strategy": "IMPORTANCE_BASED", "threshold": 2}, "threshold"),
        ({"memoryIds": ["msg_01J0000000000000000000000X"]}, "memoryIds[0]"),
        ({"memoryIds": ["'; MATCH (n) DETACH DELETE n"]}, "memoryIds[0]"),
        ({"userId": "bad user!"}, "userId"),
        # an empty list would read as "no list": every memory
        ({"memoryIds": []}, "memoryIds"),
        # a limit of another strategy would be dropped, not combined
        ({"threshold": 0.9}, "threshold"),
        ({"policy": "HARD_DELETE", "strategy": "IMPORTANCE_BASED", "maxAgeDays": 9}, "maxAgeDays"),
        (
            {"policy": "HARD_DELETE", "strategy": "TIME_BASED", "maxAgeDays": 9, "maxCapacity": 5},
            "maxCapacity",
        ),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    sim: Api, clock: SimClock, fields: dict[str, Any], field: str
) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    clock.at_day(-1000)
    (fact,) = add_facts(sim, ["Ann kept a diary in school"], importance=0.1)
    clock.at_day(0)
    result = forget(sim, **fields)
    assert (result["__typename"], result["field"]) == ("InputError", field), result
    assert memory(sim, fact)["level"] == "FULL"
    assert memory(sim, fact)["deletedAt"] is None


def test_other_tenants_and_unknown_users_are_not_found(sim: Api, clock: SimClock) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    sim.ok(CREATE_USER, {"id": "bob", "name": "Bob"})
    clock.at_day(-1000)
    (fact,) = add_facts(sim, ["Ann kept a diary in school"])
    clock.at_day(0)
    bob = sim.as_key(sim.create_key(["bob"]))
    for user in ("ann", "nobody"):
        result = bob.ok(FORGET, {"input": {"userId": user, "policy": "SOFT_DELETE"}})["forget"]
        assert result["__typename"] == "NotFoundError", result
    # Bob naming Ann's memory under his own user: not his, so nothing is read or changed.
    mine = bob.ok(FORGET, {"input": {"userId": "bob", "memoryIds": [fact]}})["forget"]
    assert mine["counts"]["scanned"] == 0
    assert memory(sim, fact)["level"] == "FULL"


MEMORIZE_2023 = """
mutation($session: ID!, $messages: [MessageInput!]!) {
  memorize(input: {userIds: ["ann"], sessionId: $session, messages: $messages}) {
    __typename ... on Memorized { counts { memories } } ... on Error { message }
  }
}"""

CHAT_2023 = [
    ("Ann", "Hi Bo! I just got back from the allergist."),
    ("Bo", "Oh no, what did they say?"),
    ("Ann", "I'm allergic to peanuts, so no more satay for me."),
    ("Bo", "That's rough. I started learning the cello last month, by the way."),
    ("Ann", "I love that! My sister plays the violin in an orchestra in Lyon."),
    ("Bo", "We should go hiking in the Alps this summer with my dog Rex."),
    ("Ann", "I work as a nurse at the city hospital, so I need to plan my leave early."),
    ("Bo", "Let's pick a weekend in July then."),
]


def _sweep(sim: Api) -> dict[str, int]:
    """Run the daily sweep now and return the summed counts of its jobs."""
    runtime = sim.client.app.state.runtime  # type: ignore[attr-defined]
    portal = sim.client.portal
    assert portal is not None
    jobs = portal.call(runtime.services.forgetting.sweep)
    portal.call(runtime.queue.drain)
    totals: Counter[str] = Counter()
    for job in jobs:
        done = sim.ok(
            "query($id: ID!) { job(id: $id) { status forgetCounts { changed fuzzed "
            "promoted softDeleted } } }",
            {"id": job.id},
        )["job"]
        assert done["status"] == "SUCCEEDED", done
        totals.update(done["forgetCounts"])
    return dict(totals)


def test_an_imported_old_conversation_is_fresh_today_and_fades_from_here(
    sim: Api, clock: SimClock
) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    session = sim.ok(
        'mutation { createSession(input: {userId: "ann", title: "2023"}) '
        "{ ... on SessionCreated { session { id } } } }"
    )["createSession"]["session"]["id"]
    start = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)
    messages = [
        {"speaker": who, "content": text, "ts": (start + timedelta(minutes=i)).isoformat()}
        for i, (who, text) in enumerate(CHAT_2023)
    ]
    made = sim.ok(MEMORIZE_2023, {"session": session, "messages": messages})["memorize"]
    assert made["__typename"] == "Memorized", made
    total = made["counts"]["memories"]
    assert total >= 8

    def levels() -> dict[str, tuple[str, str]]:
        edges = sim.ok(
            '{ memories(userId: "ann", first: 100) { edges { node { content level category } } } }'
        )["memories"]["edges"]
        return {e["node"]["content"]: (e["node"]["level"], e["node"]["category"]) for e in edges}

    # Day one (the conversation is from 2023, learned today): nothing fades.
    counts = _sweep(sim)
    assert counts["fuzzed"] == 0, counts
    assert counts["softDeleted"] == 0, counts
    assert {level for level, _ in levels().values()} == {"FULL"}
    allergy = [c for c in levels() if "allergic to peanuts" in c and not c.startswith("On ")]
    assert allergy
    assert all(levels()[c][1] == "CORE" for c in allergy)  # safety: core

    # 300 days with no access: note 002's levels appear, the allergy stays.
    clock.at_day(300)
    counts = _sweep(sim)
    assert counts["fuzzed"] > 0, counts
    after = levels()
    seen = Counter(level for level, _ in after.values())
    assert {"SUMMARY", "TAG"} <= set(seen) or {"TAG", "TRACE"} <= set(seen), seen
    assert all(after[c] == ("FULL", "CORE") for c in allergy)


def test_a_memory_named_twice_is_one_memory(sim: Api) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    first, second = add_facts(sim, ["Ann plays chess", "Ann grows tomatoes"])
    named = [first, first, second, second]

    report = forget(
        sim, policy="HARD_DELETE", strategy="CAPACITY_BASED", maxCapacity=1, memoryIds=named
    )

    counts = report["counts"]
    assert (counts["scanned"], counts["hardDeleted"]) == (2, 1), report
    kept = [m for m in (first, second) if memory(sim, m) is not None]
    assert len(kept) == 1


DELETE = "mutation($id: ID!) { deleteMemory(input: {id: $id}) { __typename } }"


def test_a_deleted_vital_fact_is_purged_not_promoted(sim: Api, clock: SimClock) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    clock.at_day(-100)
    (allergy,) = add_facts(sim, ["Ann is allergic to peanuts"], importance=0.96)
    sim.ok(DELETE, {"id": allergy})
    clock.at_day(0)

    report = forget(sim, policy="HARD_DELETE", strategy="TIME_BASED", maxAgeDays=10)

    assert (report["counts"]["promoted"], report["counts"]["hardDeleted"]) == (0, 1), report
    assert memory(sim, allergy) is None


@pytest.fixture
def paged(
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    settings: Settings,
    clock: SimClock,
) -> Iterator[Api]:
    """The app with forget runs of one memory a page."""
    one = settings.forgetting.model_copy(update={"batch_size": 1})
    app = create_app(
        settings.model_copy(update={"forgetting": one}),
        embedder=embedder,
        clock=clock,
        **graph_db.start,
    )
    with TestClient(app) as client:
        yield Api(client, ADMIN_KEY)


ADD_DERIVED = """mutation($input: AddMemoryInput!) { addMemory(input: $input) {
  ... on MemoryPayload { memory { id } } } }"""


def test_a_dry_run_over_many_pages_says_what_the_run_does(paged: Api) -> None:
    # A real run commits page by page, so a later page finds what an earlier
    # one deleted gone: a memory drawn from facts of two pages goes with the
    # second, and one an earlier page took with it is not deleted twice.
    paged.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    red, blue = add_facts(paged, ["Ann had a red kite", "Ann had a blue kite"], importance=0.2)

    def derived(content: str, sources: list[str], importance: float) -> str:
        given = {"userId": "ann", "content": content, "derivedFrom": sources}
        memory_id: str = paged.ok(ADD_DERIVED, {"input": given | {"importance": importance}})[
            "addMemory"
        ]["memory"]["id"]
        return memory_id

    both = derived("Ann liked kites", [red, blue], 0.9)
    derived("Ann's red kite was her first", [red], 0.2)
    limits = {"policy": "HARD_DELETE", "strategy": "IMPORTANCE_BASED", "threshold": 0.4}

    dry = forget(paged, dryRun=True, **limits)["counts"]
    real = forget(paged, **limits)["counts"]

    assert memory(paged, both) is None
    assert real["cascaded"] >= 1, real
    assert {k: dry[k] for k in real if k != "batches"} == {
        k: real[k] for k in real if k != "batches"
    }


MENTIONING = """
query { entities(userId: "ann", first: 50) {
  edges { node { norm mentionedIn(first: 50) { edges { node { id } } } } } } }"""


def _mentioning(api: Api, memory_id: str) -> set[str]:
    """The entities through which ``memory_id`` is found."""
    edges = api.ok(MENTIONING)["entities"]["edges"]
    return {
        e["node"]["norm"]
        for e in edges
        if memory_id in {m["node"]["id"] for m in e["node"]["mentionedIn"]["edges"]}
    }


def test_a_faded_memory_is_not_found_through_the_names_it_lost(sim: Api, clock: SimClock) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    clock.at_day(-1000)
    (old,) = add_facts(sim, ["Ann once collected vintage stamps from Portugal"])
    named = _mentioning(sim, old)
    assert {"ann", "portugal"} <= named
    clock.at_day(0)
    forget(sim)
    faded = memory(sim, old)
    assert faded["level"] == "TRACE"
    assert "Portugal" not in faded["content"]
    # Found only through what the trace still says: Portugal is gone with it.
    left = _mentioning(sim, old)
    assert "portugal" not in left
    assert all(norm in faded["content"].casefold() for norm in left), left

    # Recalled, it comes back in full, and is found through Portugal again.
    hits = sim.ok(SEARCH, {"q": "vintage", "mode": "REVIEW", "touch": True})["search"]["hits"]
    assert [h["memory"]["id"] for h in hits] == [old]
    clock.at_day(1)
    assert forget(sim)["counts"]["restored"] == 1
    assert _mentioning(sim, old) == named


@pytest.mark.parametrize("entities", [False])  # HIPPOGRAPH_MEMORIZE__ENTITIES=false
def test_with_entities_off_a_restore_links_none(sim: Api, clock: SimClock) -> None:
    sim.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
    clock.at_day(-1000)
    (old,) = add_facts(sim, ["Ann once collected vintage stamps from Portugal"])
    clock.at_day(0)
    forget(sim)
    hits = sim.ok(SEARCH, {"q": "vintage", "mode": "REVIEW", "touch": True})["search"]["hits"]
    assert [h["memory"]["id"] for h in hits] == [old]
    clock.at_day(1)
    assert forget(sim)["counts"]["restored"] == 1
    assert sim.ok(MENTIONING)["entities"]["edges"] == []
