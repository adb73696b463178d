"""memorize and reflect with the OpenAI-compatible model when it misbehaves: the stub.

A real model (tests/llm/test_real_model.py) cannot be made to answer
malformed JSON or to be down on demand; the scripted server can.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
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
def llm_api(
    graph_db: TestDatabase,
    embedder: SentenceTransformerEmbedder,
    tmp_path: Path,
    stub: StubLLMServer,
) -> Iterator[Api]:
    settings = make_settings(graph_db, tmp_path).model_copy(
        update={
            "llm": LLMSettings(
                provider="openai",
                base_url=stub.base_url,
                model="stub-model",
                timeout_s=2,
                max_retries=1,
                backoff_s=0.01,
            )
        }
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
