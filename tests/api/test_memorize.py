"""memorize over HTTP: messages → MemUnits → memories, idempotent, with provenance."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.api.conftest import CREATE_SESSION, CREATE_USER, Api

MEMORIZE = """
mutation($input: MemorizeInput!) {
  memorize(input: $input) {
    __typename
    ... on Memorized {
      created
      messages { id seq }
      counts { messages memunits memories superseded pending }
      job { id status counts { memunits memories } }
    }
    ... on InputError { message field }
    ... on Error { message code }
  }
}"""

MEMORIES = """
query($userId: ID!, $kinds: [MemoryKind!]) {
  memories(userId: $userId, first: 100,
           filter: {kinds: $kinds, includeSuperseded: true, includeConsolidated: true}) {
    edges { node { id kind content importance topic validTo
      derivedFrom { __typename id } } }
  }
}"""

CONVERSATION = [
    ("Caroline", "Hey Mel! Good to see you!", "2023-05-08T13:56:00+00:00"),
    ("Melanie", "Hi Caroline! How have you been lately?", "2023-05-08T13:57:00+00:00"),
    (
        "Caroline",
        "I went to a LGBTQ support group yesterday and I love how welcoming everyone was.",
        "2023-05-08T13:58:00+00:00",
    ),
    ("Caroline", "My name is Caroline Smith and I live in Boston.", "2023-05-08T13:59:00+00:00"),
    (
        "Melanie",
        "That is wonderful. I painted a sunrise over the lake last week with my kids.",
        "2023-05-08T14:00:00+00:00",
    ),
    ("Caroline", "I love painting too! My favourite colour is green.", "2023-05-08T14:01:00+00:00"),
]


def _messages(rows: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
    return [
        {"speaker": speaker, "content": content, "ts": ts, "clientId": f"c{i}"}
        for i, (speaker, content, ts) in enumerate(rows)
    ]


def _user_with_session(api: Api, user_id: str = "caro", name: str = "Caroline") -> str:
    api.ok(CREATE_USER, {"id": user_id, "name": name})
    session: str = api.ok(CREATE_SESSION, {"userId": user_id})["createSession"]["session"]["id"]
    return session


def _memorize(api: Api, session: str, **extra: Any) -> dict[str, Any]:
    payload = {"userIds": ["caro"], "sessionId": session, "messages": _messages(CONVERSATION)}
    result: dict[str, Any] = api.ok(MEMORIZE, {"input": payload | extra})["memorize"]
    return result


def test_relative_dates_are_the_speakers_days(api: Api) -> None:
    # 20:58 on 8 May in California is 9 May in UTC: "yesterday" was the 7th.
    evening = [
        (speaker, content, ts.replace("T13:", "T20:").replace("T14:", "T21:")[:-6] + "-07:00")
        for speaker, content, ts in CONVERSATION
    ]
    session = _user_with_session(api)
    payload = {"userIds": ["caro"], "sessionId": session, "messages": _messages(evening)}
    assert api.ok(MEMORIZE, {"input": payload})["memorize"]["__typename"] == "Memorized"

    nodes = _made_by_memorize(api)

    episode = next(n for n in nodes if n["kind"] == "EPISODIC")
    assert "7 May 2023" in episode["content"], episode
    said = next(n for n in nodes if n["kind"] == "SEMANTIC" and "support group" in n["content"])
    assert said["content"].startswith("On 8 May 2023, Caroline said"), said


def test_memorize_builds_units_memories_and_provenance(api: Api) -> None:
    session = _user_with_session(api)
    first = _memorize(api, session)
    assert first["__typename"] == "Memorized", first
    assert first["created"] == 6
    assert first["job"] is None
    counts = first["counts"]
    assert counts["messages"] == 6
    assert counts["memunits"] >= 1
    assert counts["memories"] >= 4

    nodes = _made_by_memorize(api)
    kinds = {n["kind"] for n in nodes}
    assert {"EPISODIC", "SEMANTIC", "PROFILE"} <= kinds
    episode = next(n for n in nodes if n["kind"] == "EPISODIC")
    assert "7 May 2023" in episode["content"]  # "yesterday" resolved
    assert [d["__typename"] for d in episode["derivedFrom"]] == ["MemUnit"]
    city = next(n for n in nodes if n["kind"] == "PROFILE" and n["topic"] == "city")
    assert city["content"] == "Caroline's city: Boston"
    # A personal detail in Caroline's words: a fact, and not also an event.
    [said] = [n for n in nodes if n["kind"] != "EPISODIC" and "support group" in n["content"]]
    assert said["kind"] == "SEMANTIC"
    assert said["content"].startswith("On 8 May 2023, Caroline said: “I went to a LGBTQ")
    assert {d["__typename"] for d in said["derivedFrom"]} == {"Message", "MemUnit"}
    # A fact scores at least keep_fact (0.7), unless its message is where a
    # profile attribute comes from: then it keeps its importance as an event.
    profiled = {
        d["id"]
        for n in nodes
        if n["kind"] == "PROFILE"
        for d in n["derivedFrom"]
        if d["__typename"] == "Message"
    }
    low = [n for n in nodes if n["kind"] == "SEMANTIC" and n["importance"] < 0.7]
    assert low
    assert all({d["id"] for d in n["derivedFrom"]} & profiled for n in low), low

    unit_id = episode["derivedFrom"][0]["id"]
    unit = api.ok(
        "query($id: ID!) { memUnit(id: $id) { summary narrative subject keywords participants "
        "messages { seq } } }",
        {"id": unit_id},
    )["memUnit"]
    assert unit["participants"] == ["Caroline", "Melanie"]
    assert unit["messages"][0]["seq"] == 1
    assert unit["keywords"]

    # The same messages again: nothing new anywhere.
    again = _memorize(api, session)
    assert again["created"] == 0
    assert again["counts"] == {
        "messages": 0,
        "memunits": 0,
        "memories": 0,
        "superseded": 0,
        "pending": 0,
    }
    assert len(_made_by_memorize(api)) == len(nodes)


def test_saying_it_again_adds_a_source_not_a_memory(api: Api) -> None:
    # The README's example run twice: a new session each time, the same sentence.
    api.ok(CREATE_USER, {"id": "sam", "name": "Sam"})
    said = []
    for _ in range(2):
        session = api.ok(CREATE_SESSION, {"userId": "sam"})["createSession"]["session"]["id"]
        message = {"speaker": "sam", "content": "I moved to Lisbon last month."}
        result = api.ok(
            MEMORIZE, {"input": {"userIds": ["sam"], "sessionId": session, "messages": [message]}}
        )["memorize"]
        assert result["__typename"] == "Memorized", result
        said.append(result["messages"][0]["id"])
    edges = api.ok(MEMORIES, {"userId": "sam"})["memories"]["edges"]
    lisbon = [e["node"] for e in edges if "Lisbon" in e["node"]["content"]]
    kinds = sorted(n["kind"] for n in lisbon if n["kind"] != "REFLECTION")
    # A personal detail: one fact in Sam's words (not also an event that
    # says it again), the profile's city, and the episode.
    assert kinds == ["EPISODIC", "PROFILE", "SEMANTIC"], lisbon
    fact = next(n for n in lisbon if n["kind"] == "SEMANTIC")
    # Both statements are its sources: the second is reachable from it.
    assert set(said) <= {d["id"] for d in fact["derivedFrom"]}
    profile = next(n for n in lisbon if n["kind"] == "PROFILE")
    assert profile["content"] == "Sam's city: Lisbon"


def _made_by_memorize(api: Api) -> list[dict[str, Any]]:
    """Caro's memories but the reflections (the reflect job memorize queues runs when it may)."""
    edges = api.ok(MEMORIES, {"userId": "caro"})["memories"]["edges"]
    return [e["node"] for e in edges if e["node"]["kind"] != "REFLECTION"]


def test_a_new_profile_value_supersedes_the_old(api: Api) -> None:
    session = _user_with_session(api)
    _memorize(api, session)
    moved = api.ok(
        MEMORIZE,
        {
            "input": {
                "userIds": ["caro"],
                "sessionId": session,
                "messages": [
                    {
                        "speaker": "Caroline",
                        "content": "Big news: I moved to Denver for my new job.",
                        "ts": "2023-06-20T10:00:00+00:00",
                    }
                ],
            }
        },
    )["memorize"]
    assert moved["counts"]["superseded"] == 1
    profile = [
        e["node"]
        for e in api.ok(MEMORIES, {"userId": "caro", "kinds": ["PROFILE"]})["memories"]["edges"]
        if e["node"]["topic"] == "city"
    ]
    current = [p for p in profile if p["validTo"] is None]
    assert [p["content"] for p in current] == ["Caroline's city: Denver"]
    assert any(p["content"].endswith("Boston") and p["validTo"] for p in profile)


def test_async_memorize_returns_a_job_that_finishes(api: Api) -> None:
    session = _user_with_session(api)
    queued = _memorize(api, session, **{"async": True})
    job = queued["job"]
    assert job
    assert job["status"] in {"QUEUED", "RUNNING", "SUCCEEDED"}
    query = (
        "query($id: ID!) { job(id: $id) { status attempts error counts { messages memunits "
        "memories } usage { calls } } }"
    )
    found = api.finished_job(query, job["id"])
    assert found["status"] == "SUCCEEDED", found
    assert found["counts"]["messages"] == 6
    assert found["counts"]["memories"] >= 4
    assert found["usage"]["calls"] == 0  # the offline extractor calls no LLM
    # Submitting the same work again returns the same finished job.
    assert _memorize(api, session, **{"async": True})["job"]["id"] == job["id"]


def test_the_same_messages_for_other_users_are_a_job_of_their_own(api: Api) -> None:
    session = _user_with_session(api)
    api.ok(CREATE_USER, {"id": "mel", "name": "Melanie"})
    both = _memorize(api, session, userIds=["caro", "mel"], **{"async": True})["job"]
    caro = api.as_key(api.create_key(["caro"]))

    mine = _memorize(caro, session, **{"async": True})["job"]

    assert mine["id"] != both["id"]
    job = "query($id: ID!) { job(id: $id) { id userIds } }"
    assert caro.ok(job, {"id": mine["id"]})["job"] == {"id": mine["id"], "userIds": ["caro"]}
    assert caro.ok(job, {"id": both["id"]})["job"] is None  # Mel's too: not this key's


def test_flush_false_keeps_the_open_tail_for_the_next_call(api: Api) -> None:
    session = _user_with_session(api)
    # A conversation going on now: its last unit may still grow.
    now = datetime.now(UTC)
    live = [
        (speaker, content, (now - timedelta(minutes=6 - i)).isoformat())
        for i, (speaker, content, _) in enumerate(CONVERSATION)
    ]
    payload = {"userIds": ["caro"], "sessionId": session, "messages": _messages(live)}
    held = api.ok(MEMORIZE, {"input": payload | {"flush": False}})["memorize"]
    assert held["counts"]["pending"] == 6
    assert held["counts"]["memunits"] == 0
    flushed = api.ok(MEMORIZE, {"input": payload})["memorize"]
    assert flushed["created"] == 0
    assert flushed["counts"]["messages"] == 6

    # A conversation that ended long ago is complete: nothing is held back.
    old = _user_with_session(api, "mel", "Melanie")
    done = api.ok(
        MEMORIZE,
        {
            "input": {
                "userIds": ["mel"],
                "sessionId": old,
                "messages": _messages(CONVERSATION),
                "flush": False,
            }
        },
    )["memorize"]
    assert done["counts"]["pending"] == 0
    assert done["counts"]["messages"] == 6


def test_bad_memorize_input_changes_nothing(api: Api) -> None:
    session = _user_with_session(api)
    api.ok(CREATE_USER, {"id": "other", "name": "Other"})
    cases: list[tuple[dict[str, Any], str | None]] = [
        ({"userIds": []}, "userIds"),
        ({"userIds": ["other"]}, "userIds"),
        ({"userIds": ["nobody"]}, None),
        ({"sourceType": "Bad Type!"}, "sourceType"),
        ({"groupId": "team a"}, "groupId"),
        ({"messages": []}, "messages"),
        ({"messages": [{"speaker": "A", "content": "  "}]}, "messages[0].content"),
        ({"messages": [{"speaker": "A", "content": "x", "ts": "2023-05-08T13:56:00"}]}, None),
        ({"history": [{"speaker": "", "content": "x"}]}, "history[0].speaker"),
    ]
    base = {"userIds": ["caro"], "sessionId": session, "messages": _messages(CONVERSATION[:2])}
    for change, field in cases:
        body = api.post(MEMORIZE, {"input": base | change})
        result = (body.get("data") or {}).get("memorize")
        if result is None:
            assert body.get("errors"), (change, body)
            continue
        assert result["__typename"] in {"InputError", "NotFoundError"}, (change, result)
        if field:
            assert result.get("field") == field, (change, result)
    listed = api.ok(
        "query($id: ID!) { session(id: $id) { messages(first: 10) { edges { node { id } } } } }",
        {"id": session},
    )["session"]["messages"]["edges"]
    assert listed == []
    assert api.ok(MEMORIES, {"userId": "caro"})["memories"]["edges"] == []


def test_a_limited_key_cannot_memorize_for_another_user(api: Api) -> None:
    session = _user_with_session(api)
    api.ok(CREATE_USER, {"id": "bob", "name": "Bob"})
    bob = api.as_key(api.create_key(["bob"]))
    result = bob.ok(
        MEMORIZE,
        {"input": {"userIds": ["bob"], "sessionId": session, "messages": _messages(CONVERSATION)}},
    )["memorize"]
    assert result["__typename"] == "NotFoundError"


def test_job_lookup_rejects_bad_ids_and_hides_unknown_ones(api: Api) -> None:
    assert api.error_codes('{ job(id: "not-a-job") { status } }') == ["BAD_USER_INPUT"]
    unknown = api.ok('{ job(id: "job_01JAAAAAAAAAAAAAAAAAAAAAAA") { status } }')
    assert unknown == {"job": None}


def test_every_accepted_message_memorizes_however_long(api: Api) -> None:
    # A memory holds 2,000 characters, a message 8,000: a real chat had a
    # 2,016-character turn, and the whole memorize call failed on it.
    session = _user_with_session(api)
    sentence = "I love hiking in the mountains near Boston with my sister every summer. "
    other = "I bake sourdough bread for the neighbours on our street each Sunday. "
    texts = [
        (sentence * 28)[:1990],  # just over a memory once "On <date>, Caroline said" is added
        other * 115,  # about 7,900 characters of first-person sentences
        "I love " + "x" * 7000,  # one "word" longer than a memory
    ]
    rows = [("Caroline", t, f"2023-05-08T14:0{i}:00+00:00") for i, t in enumerate(texts)]
    payload = {"userIds": ["caro"], "sessionId": session, "messages": _messages(rows)}
    result = api.ok(MEMORIZE, {"input": payload})["memorize"]
    assert result["__typename"] == "Memorized", result
    assert result["counts"]["messages"] == 3
    events = [
        m["node"]
        for m in api.ok(MEMORIES, {"userId": "caro"})["memories"]["edges"]
        if re.match(r"On [^,]+, Caroline said", m["node"]["content"])
    ]
    assert all(len(e["content"]) <= 2000 for e in events)
    # Nothing said is lost: the parts hold every character of every message.
    quotes = ["".join(e["content"].split("“", 1)[1].rstrip("”").split()) for e in events]
    assert sum(map(len, quotes)) == sum(len("".join(t.split())) for t in texts)
    assert sum(q.count("x") for q in quotes) == 7000
    assert sum("(part 1 of " in e["content"] for e in events) == 3  # each was split


def test_a_near_repeat_in_one_call_is_a_source_and_small_talk_stays_a_message(api: Api) -> None:
    api.ok(CREATE_USER, {"id": "sam", "name": "Sam"})
    session = api.ok(CREATE_SESSION, {"userId": "sam"})["createSession"]["session"]["id"]
    said = [
        ("Sam", "I'm running the Lisbon marathon in May!"),
        ("Ines", "Good luck!"),
        ("Sam", "Thanks, you too!"),
        ("Ines", "I started a pottery class at the community centre."),
        ("Sam", "I am running the Lisbon marathon in May."),
    ]
    messages = [{"speaker": s, "content": c} for s, c in said]
    result = api.ok(
        MEMORIZE,
        {"input": {"userIds": ["sam"], "sessionId": session, "messages": messages, "flush": True}},
    )["memorize"]
    assert result["__typename"] == "Memorized", result
    ids = [m["id"] for m in result["messages"]]
    nodes = [e["node"] for e in api.ok(MEMORIES, {"userId": "sam"})["memories"]["edges"]]
    words = [n for n in nodes if n["kind"] in ("EVENT", "SEMANTIC")]
    marathon = [n for n in words if "marathon" in n["content"]]
    # Said twice in other words: one memory, and both statements are its sources.
    assert len(marathon) == 1, marathon
    assert {ids[0], ids[4]} <= {d["id"] for d in marathon[0]["derivedFrom"]}
    # "Thanks, you too!" is a message (provenance shows it), not a memory.
    assert not [n for n in nodes if "you too" in n["content"]], nodes


def test_a_near_repeat_in_a_later_call_is_a_source_of_what_was_said_before(api: Api) -> None:
    api.ok(CREATE_USER, {"id": "sam", "name": "Sam"})
    session = api.ok(CREATE_SESSION, {"userId": "sam"})["createSession"]["session"]["id"]

    def memorize(*said: tuple[str, str]) -> list[str]:
        messages = [{"speaker": s, "content": c} for s, c in said]
        result = api.ok(
            MEMORIZE,
            {
                "input": {
                    "userIds": ["sam"],
                    "sessionId": session,
                    "messages": messages,
                    "flush": True,
                }
            },
        )["memorize"]
        assert result["__typename"] == "Memorized", result
        return [m["id"] for m in result["messages"]]

    first = memorize(("Sam", "I'm running the Lisbon marathon in May!"))
    # Another day, the same said again in other words, and the same words by
    # someone else, who is not the speaker of the first.
    later = memorize(
        ("Sam", "I am running the Lisbon marathon in May."),
        ("Ines", "I'm running the Lisbon marathon in May!"),
    )
    nodes = [e["node"] for e in api.ok(MEMORIES, {"userId": "sam"})["memories"]["edges"]]
    marathon = [n for n in nodes if "marathon" in n["content"]]
    by_sam = [n for n in marathon if "Sam said" in n["content"]]
    assert len(by_sam) == 1, marathon
    assert "I'm running" in by_sam[0]["content"]  # the first wording stands
    assert {first[0], later[0]} <= {d["id"] for d in by_sam[0]["derivedFrom"]}
    by_ines = [n for n in marathon if "Ines said" in n["content"]]
    assert len(by_ines) == 1, marathon
    assert later[1] in {d["id"] for d in by_ines[0]["derivedFrom"]}
    assert later[0] not in {d["id"] for d in by_ines[0]["derivedFrom"]}
