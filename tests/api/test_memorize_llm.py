"""memorize and reflect with the OpenAI-compatible model when it misbehaves: the stub.

A real model (tests/llm/test_real_model.py) cannot be made to answer
malformed JSON or to be down on demand; the scripted server can.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from hippograph.settings import LLMSettings
from tests.api.conftest import ADMIN_KEY, ANN_FACTS_BY_THEME, Api, make_settings, seed_user
from tests.api.test_memorize import CONVERSATION, MEMORIES, MEMORIZE, _messages, _user_with_session
from tests.api.test_reflection import REFLECTIONS, _add_fact, _run
from tests.graphs import TestDatabase
from tests.llm.stub_server import StubLLMServer, completion, error, grouped

EXTRACTION = {
    "summary": "Caroline told Melanie about a support group and her home in Boston.",
    "narrative": "On 8 May 2023 Caroline told Melanie she had gone to an LGBTQ support "
    "group on 7 May 2023 and that she lives in Boston.",
    "subject": "support group",
    "keywords": ["support group", "boston"],
    "episodes": [
        {
            "user_id": "caro",
            "title": "support group",
            "narrative": "On 8 May 2023 Caroline told Melanie about the support group.",
        }
    ],
    "facts": [
        {
            "user_id": "caro",
            "kind": "semantic",
            "content": "Caroline attends an LGBTQ support group.",
            "importance": 0.85,
            "message_indices": [2],
            "topic": "community",
        }
    ],
    "profile": [
        {"user_id": "caro", "attribute": "city", "value": "Boston", "message_indices": [3]}
    ],
}


@pytest.fixture
def llm_options() -> dict[str, Any]:
    """LLM settings a test changes, by ``parametrize``."""
    return {}


@pytest.fixture
def job_options() -> dict[str, Any]:
    """Job settings a test changes, by ``parametrize``."""
    return {}


@pytest.fixture
def llm_api(
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    tmp_path: Path,
    stub: StubLLMServer,
    llm_options: dict[str, Any],
    job_options: dict[str, Any],
) -> Iterator[Api]:
    options: dict[str, Any] = {
        "provider": "openai",
        "base_url": stub.base_url,
        "model": "stub-model",
        "timeout_s": 2,
        "max_retries": 1,
        "backoff_s": 0.01,
    }
    settings = make_settings(graph_db, tmp_path)
    jobs = settings.jobs.model_copy(update=job_options)
    settings = settings.model_copy(
        update={"llm": LLMSettings(**(options | llm_options)), "jobs": jobs}
    )
    app = create_app(settings, embedder=embedder, **graph_db.start)
    with TestClient(app) as client:
        yield Api(client, ADMIN_KEY)


def _wait(api: Api, job_id: str) -> dict[str, Any]:
    query = "query($id: ID!) { job(id: $id) { status error usage { promptTokens calls } } }"
    return api.finished_job(query, job_id)


def test_memories_come_from_the_models_json(llm_api: Api, stub: StubLLMServer) -> None:
    session = _user_with_session(llm_api)
    stub.script(completion("not json at all"), completion(json.dumps(grouped(EXTRACTION)), 300, 80))
    payload = {"userIds": ["caro"], "sessionId": session, "messages": _messages(CONVERSATION)}
    queued = llm_api.ok(MEMORIZE, {"input": payload | {"async": True}})["memorize"]
    job = _wait(llm_api, queued["job"]["id"])
    assert job["status"] == "SUCCEEDED", job
    assert job["usage"] == {"promptTokens": 400, "calls": 2}  # the bad answer counted too
    nodes = [e["node"] for e in llm_api.ok(MEMORIES, {"userId": "caro"})["memories"]["edges"]]
    contents = {n["kind"]: n["content"] for n in nodes}
    assert contents["SEMANTIC"] == "Caroline attends an LGBTQ support group."
    assert contents["PROFILE"] == "Caroline's city: Boston"
    assert contents["EPISODIC"].startswith("On 8 May 2023 Caroline told Melanie")
    assert stub.received[0].user_payload["users"] == {"caro": "Caroline"}


def test_an_llm_outage_keeps_the_messages_for_the_next_call(
    llm_api: Api, stub: StubLLMServer
) -> None:
    session = _user_with_session(llm_api)
    stub.script(error(503, "overloaded"), error(503, "overloaded"))
    payload = {"userIds": ["caro"], "sessionId": session, "messages": _messages(CONVERSATION)}
    failed = llm_api.ok(MEMORIZE, {"input": payload})["memorize"]
    assert failed["__typename"] == "UnavailableError", failed
    assert "503" in failed["message"]
    assert llm_api.ok(MEMORIES, {"userId": "caro"})["memories"]["edges"] == []

    stub.script(completion(json.dumps(grouped(EXTRACTION))))
    again = llm_api.ok(MEMORIZE, {"input": payload})["memorize"]
    assert again["__typename"] == "Memorized", again
    assert again["created"] == 0  # the messages were kept the first time
    assert again["counts"]["messages"] == 6
    assert again["counts"]["memories"] >= 3


# Each answer takes 0.8 s and a request times out after 3 s; one question at a time.
_SLOW_ONE_AT_A_TIME = {"timeout_s": 3, "concurrency": 1}
_ANSWER_S = 0.8


SIX = [
    "My sister Lucy lives in Dublin.",
    "I started learning the cello this spring.",
    "I'm allergic to peanuts.",
    "My cousin Mia teaches chemistry in Cork.",
    "My neighbour Sam fixes old bicycles.",
    "I can't eat shellfish either.",
]


def _six_units(stub: StubLLMServer, first: int = 0, last: int = 6) -> list[dict[str, str]]:
    """Six of Ann's messages an hour apart (six MemUnits), and the stub's answer to
    each from the ``first`` to before the ``last``, _ANSWER_S after it is asked."""
    for text in SIX[first:last]:
        answer = {
            "summary": text,
            "subject": text.split()[1],
            "keywords": [],
            "episodes": [{"user_id": "ann", "title": "news", "narrative": f"Ann said: {text}"}],
            "facts": [
                {
                    "user_id": "ann",
                    "kind": "semantic",
                    "content": text.replace("I", "Ann", 1).replace("My", "Ann's", 1),
                    "importance": 0.6,
                    "message_indices": [0],
                }
            ],
        }
        stub.script(replace(completion(json.dumps(grouped(answer))), delay_s=_ANSWER_S))
    return [
        {"speaker": "Ann", "content": text, "ts": f"2023-05-08T{10 + i:02d}:00:00+00:00"}
        for i, text in enumerate(SIX)
    ]


@pytest.mark.parametrize("llm_options", [_SLOW_ONE_AT_A_TIME])
def test_a_job_outlives_the_models_timeout(llm_api: Api, stub: StubLLMServer) -> None:
    # Six MemUnits an hour apart are six questions, asked one at a time: the
    # job takes at least 4.8 s, longer than the 3 s timeout of any one request.
    # The timeout is each request's, not the job's, and a question's wait for
    # its slot does not count against it. The stub makes the times exact; a
    # real model's time swings by more than three to one beside the rest of
    # the suite, and a margin calibrated on it failed twice there.
    session = _user_with_session(llm_api, "ann", "Ann")
    turns = _six_units(stub)
    payload = {"userIds": ["ann"], "sessionId": session, "messages": turns, "async": True}
    started = time.monotonic()
    queued = llm_api.ok(MEMORIZE, {"input": payload})["memorize"]
    job = _wait(llm_api, queued["job"]["id"])
    took = time.monotonic() - started
    assert job["status"] == "SUCCEEDED", job
    assert job["usage"]["calls"] == 6, job  # one question per unit, none timed out
    assert took > _SLOW_ONE_AT_A_TIME["timeout_s"], took
    asked = [r.at for r in stub.received]
    assert all(b - a >= _ANSWER_S * 0.95 for a, b in pairwise(asked)), asked
    nodes = [e["node"] for e in llm_api.ok(MEMORIES, {"userId": "ann"})["memories"]["edges"]]
    assert sum(n["kind"] == "EPISODIC" for n in nodes) == 6, nodes


@pytest.mark.parametrize("llm_options", [_SLOW_ONE_AT_A_TIME])
@pytest.mark.parametrize("job_options", [{"timeout_s": 4.5}])
def test_a_job_stopped_by_its_timeout_keeps_the_units_it_wrote(
    llm_api: Api, stub: StubLLMServer
) -> None:
    # Four units are extracted and written in about 3.5 s; the job's 4.5 s run
    # out during the last two. What was written stays, and the next call
    # starts after it: a long import gets through, a few units at a time.
    session = _user_with_session(llm_api, "ann", "Ann")
    payload = {"userIds": ["ann"], "sessionId": session, "messages": _six_units(stub)}
    queued = llm_api.ok(MEMORIZE, {"input": payload | {"async": True}})["memorize"]
    job = _wait(llm_api, queued["job"]["id"])
    assert (job["status"], job["error"]) == ("FAILED", "timed out after 4.5 s"), job

    def episodes() -> int:
        edges = llm_api.ok(MEMORIES, {"userId": "ann"})["memories"]["edges"]
        return sum(e["node"]["kind"] == "EPISODIC" for e in edges)

    assert episodes() == 4
    stub.drop_script()  # an answer the stopped job never asked for, if any
    stub.received.clear()
    _six_units(stub, first=4)
    again = llm_api.ok(MEMORIZE, {"input": payload | {"async": False}})["memorize"]
    assert again["__typename"] == "Memorized", again
    assert episodes() == 6
    assert len(stub.received) == 2  # only the two units left


def test_two_groups_the_model_names_one_theme_become_one_reflection(
    llm_api: Api, stub: StubLLMServer
) -> None:
    # The facts fall into two groups by meaning, but the model calls both
    # "hobbies": they are summarised again as one, so that the user never
    # holds two current reflections on one theme.
    seed_user(llm_api, "ann", ["hello"])
    facts = {_add_fact(llm_api, t, w) for group in ANN_FACTS_BY_THEME.values() for t, w in group}
    merged = "Ann's mornings are for coffee and her Saturdays for climbing."
    stub.script(
        completion(json.dumps({"content": "Ann loves coffee.", "topic": "hobbies"})),
        completion(json.dumps({"content": "Ann climbs.", "topic": "Hobbies"})),
        completion(json.dumps({"content": merged, "topic": "hobbies"})),
    )
    job = _run(llm_api, force=False)
    assert job["status"] == "SUCCEEDED", job
    assert job["counts"] == {"reflections": 1, "consolidated": 6}
    [reflection] = [
        e["node"] for e in llm_api.ok(REFLECTIONS, {"userId": "ann"})["memories"]["edges"]
    ]
    assert reflection["content"] == merged
    assert {s["id"] for s in reflection["summarizes"]} == facts
    assert len(stub.received) == 3


def test_history_is_numbered_apart_from_the_units_messages(
    llm_api: Api, stub: StubLLMServer
) -> None:
    # A model that cites the history (which the prompt forbids) must not have
    # its fact filed under the unit's message of the same number.
    session = _user_with_session(llm_api)
    from_history = {
        "user_id": "caro",
        "kind": "semantic",
        "content": "Caroline's sister is called Lucy.",
        "importance": 0.8,
        "message_indices": [-1],
    }
    answer = EXTRACTION | {"facts": [*EXTRACTION["facts"], from_history]}
    stub.script(completion(json.dumps(grouped(answer))))
    history = [
        {"speaker": "Caroline", "content": "I have two sisters."},
        {"speaker": "Caroline", "content": "My sister Lucy lives in Rome."},
    ]
    payload = {
        "userIds": ["caro"],
        "sessionId": session,
        "messages": _messages(CONVERSATION),
        "history": history,
    }
    assert llm_api.ok(MEMORIZE, {"input": payload})["memorize"]["__typename"] == "Memorized"

    sent = stub.received[0].user_payload
    assert [m["index"] for m in sent["history"]] == [-2, -1]
    assert [m["index"] for m in sent["messages"]] == list(range(len(CONVERSATION)))
    contents = [
        e["node"]["content"] for e in llm_api.ok(MEMORIES, {"userId": "caro"})["memories"]["edges"]
    ]
    assert "Caroline attends an LGBTQ support group." in contents
    assert "Caroline's sister is called Lucy." not in contents


def test_an_answer_wrong_after_every_retry_fails_the_job_without_running_it_again(
    llm_api: Api, stub: StubLLMServer
) -> None:
    # max_retries=1: two questions. The job runner tries a job again when a
    # dependency is away, not when the model answered and the answer was wrong.
    session = _user_with_session(llm_api)
    stub.script(*[completion("not json at all")] * 6)
    payload = {"userIds": ["caro"], "sessionId": session, "messages": _messages(CONVERSATION)}
    queued = llm_api.ok(MEMORIZE, {"input": payload | {"async": True}})["memorize"]
    job = _wait(llm_api, queued["job"]["id"])
    assert job["status"] == "FAILED", job
    assert "invalid JSON after 2 attempts" in job["error"], job
    assert len(stub.received) == 2
    assert stub.unanswered == 4
    assert job["usage"] == {"promptTokens": 200, "calls": 2}  # what it spent is recorded


def test_a_failed_job_records_what_the_parts_before_the_failure_spent(
    llm_api: Api, stub: StubLLMServer
) -> None:
    # Five units: four written, then the model breaks down on the fifth.
    session = _user_with_session(llm_api, "ann", "Ann")
    turns = _six_units(stub, last=4)[:5]
    stub.script(*[completion("not json at all")] * 2)
    payload = {"userIds": ["ann"], "sessionId": session, "messages": turns, "async": True}
    job = _wait(llm_api, llm_api.ok(MEMORIZE, {"input": payload})["memorize"]["job"]["id"])
    assert job["status"] == "FAILED", job
    assert job["usage"] == {"promptTokens": 600, "calls": 6}, job
