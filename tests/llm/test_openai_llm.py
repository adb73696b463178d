"""The OpenAI-compatible extractor against a real HTTP stub of chat completions."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any

import pytest

from hippograph.adapters.llm_errors import LLMError
from hippograph.extraction.schema import ExtractionRequest, UnitMessage
from hippograph.ports import Usage
from tests.llm.conftest import MakeLLM
from tests.llm.stub_server import Reply, StubLLMServer, completion, cut, error, grouped

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
REQUEST = ExtractionRequest(
    messages=(
        UnitMessage(
            index=4, speaker="Caroline", text="I went to a support group yesterday.", ts=MAY_8
        ),
        UnitMessage(
            index=5,
            speaker="Melanie",
            text="That's great! I love painting.",
            ts=MAY_8 + timedelta(minutes=1),
        ),
    ),
    history=(
        UnitMessage(index=3, speaker="Caroline", text="Hey Mel!", ts=MAY_8 - timedelta(minutes=1)),
    ),
    users={"caro": "Caroline", "mel": "Melanie"},
)


def extraction(**changes: Any) -> dict[str, Any]:
    """A valid answer for REQUEST, with ``changes`` applied."""
    answer: dict[str, Any] = {
        "summary": "Caroline went to a support group; Melanie loves painting.",
        "narrative": "On 8 May 2023 Caroline told Melanie she had gone to a support group on 7 May 2023.",
        "subject": "Caroline's support group",
        "keywords": ["support group", "painting"],
        "episodes": [
            {
                "user_id": "caro",
                "title": "Support group",
                "narrative": "Caroline went on 7 May 2023.",
            },
            {
                "user_id": "mel",
                "title": "Painting",
                "narrative": "Melanie said she loves painting.",
            },
        ],
        "facts": [
            {
                "user_id": "caro",
                "kind": "event",
                "content": "Caroline went to a support group on 7 May 2023.",
                "importance": 0.6,
                "message_indices": [4],
            },
            {
                "user_id": "mel",
                "kind": "semantic",
                "content": "Melanie loves painting.",
                "importance": 0.8,
                "message_indices": [5],
                "topic": "preference",
            },
        ],
        "profile": [
            {"user_id": "mel", "attribute": "likes", "value": "painting", "message_indices": [5]}
        ],
    }
    return answer | changes


def answer(**changes: Any) -> str:
    """The model's answer (grouped by user) for ``extraction(**changes)``."""
    return json.dumps(grouped(extraction(**changes)))


def ok(**changes: Any) -> Reply:
    """A completion carrying a valid extraction (100 prompt, 20 completion tokens)."""
    return completion(answer(**changes))


def _prompt(language: str) -> str:
    return (
        resources.files("hippograph").joinpath(f"prompts/extract.{language}.md").read_text("utf-8")
    )


async def test_success_returns_the_validated_extraction_with_its_usage(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(ok())
    llm = make_llm()
    result = await llm.extract(REQUEST)
    assert llm.name == "stub-model"
    assert result.subject == "Caroline's support group"
    assert [e.user_id for e in result.episodes] == ["caro", "mel"]
    assert [(f.kind, f.message_indices) for f in result.facts] == [
        ("event", [4]),
        ("semantic", [5]),
    ]
    assert result.profile[0].attribute == "likes"
    assert result.usage == Usage(prompt_tokens=100, completion_tokens=20, calls=1)
    [sent] = stub.received
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.body["model"] == "stub-model"
    assert sent.body["temperature"] == 0.2
    assert sent.body["max_tokens"] == 2048
    response_format = sent.body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "extraction"
    schema = response_format["json_schema"]["schema"]
    users = schema["properties"]["users"]
    assert users["required"] == ["caro", "mel"]  # one entry per user, and no other
    assert users["additionalProperties"] is False
    facts = users["properties"]["caro"]["properties"]["facts"]
    assert facts["maxItems"] == 3  # two messages: a fact or two each at most
    assert [m["role"] for m in sent.body["messages"]] == ["system", "user"]
    assert sent.system_prompt == _prompt("en")
    assert sent.user_payload == {
        "users": {"caro": "Caroline", "mel": "Melanie"},
        "history": [
            {
                "index": 3,
                "speaker": "Caroline",
                "time": "2023-05-08T13:55:00+00:00",
                "text": "Hey Mel!",
            }
        ],
        "messages": [
            {
                "index": 4,
                "speaker": "Caroline",
                "time": "2023-05-08T13:56:00+00:00",
                "text": "I went to a support group yesterday.",
            },
            {
                "index": 5,
                "speaker": "Melanie",
                "time": "2023-05-08T13:57:00+00:00",
                "text": "That's great! I love painting.",
            },
        ],
    }


async def test_a_fenced_json_answer_is_accepted(stub: StubLLMServer, make_llm: MakeLLM) -> None:
    stub.script(completion("```json\n" + answer() + "\n```"))
    result = await make_llm().extract(REQUEST)
    assert result.summary.startswith("Caroline went")


async def test_malformed_json_is_retried_and_usage_summed(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(completion("{not json", prompt_tokens=90, completion_tokens=3), ok())
    result = await make_llm().extract(REQUEST)
    assert len(stub.received) == 2
    assert result.usage == Usage(prompt_tokens=190, completion_tokens=23, calls=2)


async def test_output_failing_the_schema_is_retried(stub: StubLLMServer, make_llm: MakeLLM) -> None:
    bad_fact = extraction()["facts"][1] | {"importance": 1.5}
    stub.script(completion(answer(facts=[bad_fact])), ok())
    result = await make_llm().extract(REQUEST)
    assert len(stub.received) == 2
    assert result.facts[1].importance == 0.8


async def test_429_honours_retry_after(stub: StubLLMServer, make_llm: MakeLLM) -> None:
    stub.script(error(429, "slow down", {"Retry-After": "0.3"}), ok())
    result = await make_llm(max_backoff_s=1.0).extract(REQUEST)
    first, second = stub.received
    assert 0.3 <= second.at - first.at < 0.9  # our own backoff alone would be 0.01 s
    assert result.usage == Usage(prompt_tokens=100, completion_tokens=20, calls=2)


async def test_a_retry_after_beyond_two_minutes_fails_at_once(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    # The SDK's policy: a server asking for more than two minutes is not retried
    # (the hand-written client used to cap the wait at max_backoff_s instead).
    stub.script(error(503, "busy", {"Retry-After": "121"}), ok())
    with pytest.raises(LLMError) as raised:
        await make_llm().extract(REQUEST)
    assert str(raised.value) == "LLM stub-model answered HTTP 503: busy"
    assert raised.value.status == 503
    assert raised.value.usage.calls == 1
    assert stub.unanswered == 1


async def test_a_timeout_is_retried(stub: StubLLMServer, make_llm: MakeLLM) -> None:
    stub.script(Reply(body=completion("{}").body, delay_s=0.6), ok())
    result = await make_llm(timeout_s=0.2).extract(REQUEST)
    assert len(stub.received) == 2
    assert result.usage == Usage(prompt_tokens=100, completion_tokens=20, calls=2)


async def test_persistent_server_errors_raise_after_max_retries_plus_one_calls(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    # HTTP retries are the SDK's: it logs them itself (logger "openai", INFO).
    stub.script(*[error(500, "the model is overloaded")] * 3)
    with pytest.raises(LLMError) as raised:
        await make_llm(max_retries=2).extract(REQUEST)
    assert len(stub.received) == 3
    assert str(raised.value) == (
        "LLM stub-model answered HTTP 500 after 3 attempts: the model is overloaded"
    )
    assert raised.value.status == 500
    assert raised.value.usage.calls == 3


async def test_persistent_malformed_json_names_the_cause(
    stub: StubLLMServer, make_llm: MakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    stub.script(*[completion("Sure! Here is the JSON you asked for.", 50, 5)] * 4)
    with (
        caplog.at_level(logging.WARNING, "hippograph.adapters.openai_llm"),
        pytest.raises(
            LLMError, match=r"^LLM stub-model returned invalid JSON after 4 attempts: "
        ) as raised,
    ):
        await make_llm().extract(REQUEST)
    assert len(stub.received) == 4
    assert raised.value.usage == Usage(prompt_tokens=200, completion_tokens=20, calls=4)
    assert [r.getMessage().split(" returned")[0] for r in caplog.records] == [
        "LLM stub-model attempt 1/4",
        "LLM stub-model attempt 2/4",
        "LLM stub-model attempt 3/4",
    ]


async def test_an_invalid_answer_after_an_http_retry_counts_every_request(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(error(429, "slow down", {"retry-after-ms": "10"}), completion("{oops", 70, 2), ok())
    result = await make_llm().extract(REQUEST)
    assert len(stub.received) == 3
    assert result.usage == Usage(prompt_tokens=170, completion_tokens=22, calls=3)


async def test_a_400_is_not_retried(stub: StubLLMServer, make_llm: MakeLLM) -> None:
    stub.script(error(400, "Unknown model 'stub-model'"), ok())
    with pytest.raises(LLMError) as raised:
        await make_llm().extract(REQUEST)
    assert str(raised.value) == (
        "LLM stub-model rejected the request with HTTP 400: Unknown model 'stub-model'"
    )
    assert raised.value.status == 400
    assert len(stub.received) == 1
    assert stub.unanswered == 1


async def test_items_under_an_unknown_user_id_are_dropped_and_the_rest_kept(
    stub: StubLLMServer, make_llm: MakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    # Asked again at temperature 0 a model answers the same: the bad item goes.
    stranger = {"user_id": "gina", "title": "x", "narrative": "Gina paints."}
    foreign_fact = extraction()["facts"][1] | {"user_id": "Gina"}
    # Melanie's under her name too: the same user, who has an episode already.
    again = {"user_id": "melanie", "title": "y", "narrative": "Melanie paints."}
    episodes = [*extraction()["episodes"], stranger, again]
    stub.script(completion(answer(episodes=episodes, facts=[foreign_fact])))
    with caplog.at_level(logging.WARNING, "hippograph.adapters.openai_llm"):
        result = await make_llm(max_retries=1).extract(REQUEST)
    assert len(stub.received) == 1
    assert [e.user_id for e in result.episodes] == ["caro", "mel"]
    assert result.episodes[1].title == "Painting"
    assert result.facts == []
    assert "unknown user id 'gina'" in caplog.text
    assert "unknown user id 'Gina'" in caplog.text
    assert "a second episode of 'mel'" in caplog.text


async def test_citations_of_history_are_dropped_and_an_uncited_fact_with_them(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    history_fact = extraction()["facts"][0] | {"message_indices": [3]}  # index 3 is history
    mixed = extraction()["facts"][1] | {"message_indices": [3, 5, 5]}
    stub.script(completion(answer(facts=[history_fact, mixed])))
    result = await make_llm().extract(REQUEST)
    assert len(stub.received) == 1
    assert [(f.content, f.message_indices) for f in result.facts] == [
        ("Melanie loves painting.", [5])
    ]


async def test_made_up_profile_values_and_repeated_facts_are_dropped(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    # What Qwen2.5-0.5B answered for a LoCoMo chat: attributes from the
    # prompt's list filled with guesses, and one fact repeated per message.
    profile = [
        {"user_id": "mel", "attribute": "likes", "value": "painting", "message_indices": [5]},
        {"user_id": "caro", "attribute": "age", "value": "25", "message_indices": [4]},
        {"user_id": "caro", "attribute": "pets", "value": "None", "message_indices": [4]},
        {"user_id": "caro", "attribute": "city", "value": "Boston", "message_indices": []},
    ]
    fact = extraction()["facts"][1]
    repeat = fact | {"message_indices": [4], "importance": 0.9}
    stub.script(completion(answer(profile=profile, facts=[fact, repeat])))
    result = await make_llm().extract(REQUEST)
    assert [(p.attribute, p.value) for p in result.profile] == [("likes", "painting")]
    assert [(f.message_indices, f.importance) for f in result.facts] == [([5, 4], 0.9)]


async def test_a_retry_carries_the_rejected_answer_and_the_reason(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(completion("{not json"), ok())
    await make_llm().extract(REQUEST)
    first, second = stub.received
    assert [m["role"] for m in second.body["messages"]] == ["system", "user", "assistant", "user"]
    assert second.body["messages"][2]["content"] == "{not json"
    correction = second.body["messages"][3]["content"]
    assert correction.startswith("That answer was rejected: it returned invalid JSON: ")
    assert second.body["messages"][:2] == first.body["messages"]


async def test_an_answer_in_another_language_is_asked_again(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    chinese = extraction(summary="卡罗琳去了互助小组，梅兰妮喜欢画画。")
    chinese["facts"] = [f | {"content": "梅兰妮喜欢画画。"} for f in chinese["facts"]]
    stub.script(completion(json.dumps(grouped(chinese))), ok())
    result = await make_llm().extract(REQUEST)
    assert result.summary.startswith("Caroline went")
    correction = stub.received[1].body["messages"][3]["content"]
    assert "the conversation is in English, the answer in Chinese" in correction


async def test_an_answer_cut_at_max_tokens_fails_at_once(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    truncated = completion('{"summary": "Caroline went to', 100, 64)
    truncated.body["choices"][0]["finish_reason"] = "length"
    stub.script(truncated, ok())
    with pytest.raises(LLMError, match=r"stopped at max_tokens=64 before its answer was complete"):
        await make_llm(max_tokens=64).extract(REQUEST)
    assert len(stub.received) == 1


async def test_a_server_refusing_json_schema_gets_json_object_from_then_on(
    stub: StubLLMServer, make_llm: MakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    stub.script(error(400, "response_format json_schema is not supported"), ok(), ok())
    llm = make_llm()
    with caplog.at_level(logging.WARNING, "hippograph.adapters.openai_llm"):
        await llm.extract(REQUEST)
        await llm.extract(REQUEST)
    formats = [r.body["response_format"]["type"] for r in stub.received]
    assert formats == ["json_schema", "json_object", "json_object"]
    assert llm.structured_output == "json_object"
    assert "refused response_format json_schema; using json_object from now on" in caplog.text


async def test_a_server_refusing_every_format_gets_none_and_a_400_still_fails(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(error(400, "no schema"), error(400, "no json mode"), ok())
    llm = make_llm()
    await llm.extract(REQUEST)
    assert "response_format" not in stub.received[-1].body
    stub.script(error(400, "Unknown model 'stub-model'"))
    with pytest.raises(LLMError, match="rejected the request with HTTP 400"):
        await llm.extract(REQUEST)


async def test_a_fixed_format_is_never_stepped_down(stub: StubLLMServer, make_llm: MakeLLM) -> None:
    stub.script(error(400, "response_format json_schema is not supported"))
    with pytest.raises(LLMError, match="HTTP 400: response_format json_schema"):
        await make_llm(structured_output="json_schema").extract(REQUEST)
    assert len(stub.received) == 1


async def test_a_connection_cut_mid_answer_is_retried(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(cut(answer()), ok())
    result = await make_llm().extract(REQUEST)
    assert len(stub.received) == 2
    assert result.usage.calls == 2


async def test_no_more_questions_in_flight_than_the_concurrency_allows(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    slow = Reply(body=completion(answer()).body, delay_s=0.2)
    stub.script(*[slow] * 6)
    llm = make_llm(concurrency=2, timeout_s=5)
    await asyncio.gather(*(llm.extract(REQUEST) for _ in range(6)))
    assert llm.peak_in_flight == 2
    arrivals = sorted(r.at for r in stub.received)
    assert arrivals[2] - arrivals[0] >= 0.15  # the third waited for a slot


async def test_the_wait_for_a_slot_does_not_count_against_the_timeout(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    # One slot, three questions at once, each answered in 0.3 s: the last
    # waits 0.6 s for its slot, longer than the timeout, and is still asked once.
    slow = Reply(body=completion(answer()).body, delay_s=0.3)
    stub.script(*[slow] * 3)
    llm = make_llm(concurrency=1, timeout_s=0.5, max_retries=0)
    results = await asyncio.gather(*(llm.extract(REQUEST) for _ in range(3)))
    assert [r.usage.calls for r in results] == [1, 1, 1]
    assert llm.peak_in_flight == 1
    arrivals = sorted(r.at for r in stub.received)
    assert arrivals[2] - arrivals[0] >= 0.5  # the last one did wait


async def test_an_unreachable_server_is_retried_then_fails(make_llm: MakeLLM) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    llm = make_llm(base_url=f"http://127.0.0.1:{port}/v1", max_retries=1)
    with pytest.raises(LLMError, match=r"could not be reached after 2 attempts"):
        await llm.extract(REQUEST)


async def test_the_chinese_prompt_is_used_when_language_is_zh(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(ok())
    await make_llm(language="zh").extract(REQUEST)
    [sent] = stub.received
    assert sent.system_prompt == _prompt("zh")
    assert "第三人称" in sent.system_prompt
    assert sent.system_prompt != _prompt("en")


async def test_no_authorization_header_without_an_api_key(
    stub: StubLLMServer, make_llm: MakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK would fall back to OPENAI_API_KEY: that key must not go to another server.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    stub.script(ok())
    await make_llm(api_key=None).extract(REQUEST)
    assert "authorization" not in stub.received[0].headers


@pytest.mark.parametrize("api_key", [None, "sk-for-this-server"])
async def test_openais_organisation_and_project_go_to_no_server(
    stub: StubLLMServer, make_llm: MakeLLM, monkeypatch: pytest.MonkeyPatch, api_key: str | None
) -> None:
    # The SDK adds them from the environment to every request it sends.
    monkeypatch.setenv("OPENAI_ORG_ID", "org-private")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-private")
    stub.script(ok())
    await make_llm(api_key=api_key).extract(REQUEST)
    headers = stub.received[0].headers
    assert "openai-organization" not in headers
    assert "openai-project" not in headers


async def test_the_profile_on_record_goes_with_the_question(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    # So that a changed value comes back under the attribute it replaces.
    stub.script(ok())
    known = {"caro": {"city": "Boston"}}
    await make_llm().extract(REQUEST.model_copy(update={"profiles": known}))
    payload = stub.received[0].user_payload
    assert list(payload) == ["users", "known_profile", "history", "messages"]
    assert payload["known_profile"] == known


async def test_wrong_field_names_end_in_an_error_that_names_the_field(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    # A server without JSON schemas lets a model rename fields ("text" for
    # "content"): asked again with the reason, then a job error naming it.
    renamed = json.loads(answer())
    fact = renamed["users"]["mel"]["facts"][0]
    fact["text"] = fact.pop("content")
    stub.script(*[completion(json.dumps(renamed))] * 2)
    with pytest.raises(LLMError) as raised:
        await make_llm(max_retries=1).extract(REQUEST)
    message = str(raised.value)
    assert message.startswith("LLM stub-model returned an invalid extraction after 2 attempts:")
    assert "users.mel.facts.0.content" in message
    assert "Field required" in message
    correction = stub.received[1].body["messages"][3]["content"]
    assert "users.mel.facts.0.content" in correction


async def test_a_fact_with_the_same_words_in_another_order_is_another_fact(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    said = [
        "Caroline lent Melanie money.",
        "Melanie lent Caroline money.",
        "caroline lent melanie money",
    ]
    stub.script(ok(facts=[_caros_fact(c) for c in said]))
    got = await make_llm().extract(REQUEST)
    assert [f.content for f in got.facts] == said[:2]  # the third repeats the first


async def test_an_odd_response_is_asked_again_and_what_it_cost_counts(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    # Servers answer oddly: a choice without a message, tokens given as null,
    # no choices at all. Each is a bad answer to ask again, not a crash.
    no_message = completion("x")
    no_message.body["choices"][0].pop("message")
    null_tokens = ok()
    null_tokens.body["usage"]["prompt_tokens"] = None
    no_choices = completion("x")
    no_choices.body["choices"] = []
    stub.script(no_message, no_choices, null_tokens)
    result = await make_llm(max_retries=2).extract(REQUEST)
    assert result.subject == "Caroline's support group"
    # 100 + 100 + (null) 0 prompt tokens; every request counted
    assert result.usage == Usage(prompt_tokens=200, completion_tokens=60, calls=3)


ZH_REQUEST = REQUEST.model_copy(
    update={
        "language": "zh",
        "messages": (
            UnitMessage(
                index=4, speaker="Caroline", text="我上周搬到了Boston，在Google工作。", ts=MAY_8
            ),
            UnitMessage(index=5, speaker="Melanie", text="太好了！", ts=MAY_8),
        ),
    }
)


def _caros_fact(content: str) -> dict[str, Any]:
    """A semantic fact of Caroline's, citing her message (index 4)."""
    return {
        "user_id": "caro",
        "kind": "semantic",
        "content": content,
        "importance": 0.7,
        "message_indices": [4],
    }


async def test_a_chinese_answer_may_name_things_in_latin_letters(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    # More Latin letters than Chinese characters, and Chinese all the same.
    facts = [_caros_fact("Caroline搬到了Boston。"), _caros_fact("Caroline在Google工作。")]
    stub.script(ok(summary="Caroline告诉Melanie她搬到了Boston。", facts=facts, profile=[]))
    got = await make_llm().extract(ZH_REQUEST)
    assert [f.content for f in got.facts] == ["Caroline搬到了Boston。", "Caroline在Google工作。"]


async def test_an_english_answer_to_a_chinese_conversation_is_asked_again(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    english = ok(facts=[_caros_fact("Caroline moved to Boston.")], profile=[])
    chinese = ok(
        summary="Caroline搬到了Boston。", facts=[_caros_fact("Caroline搬到了Boston。")], profile=[]
    )
    stub.script(english, chinese)
    got = await make_llm(max_retries=1).extract(ZH_REQUEST)
    assert [f.content for f in got.facts] == ["Caroline搬到了Boston。"]
    assert len(stub.received) == 2


async def test_items_filed_under_a_users_name_are_kept_under_the_id(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    # A model keys its answer by the speakers it read ("Caroline", "MEL"),
    # not by the ids it was given: nothing of it was kept.
    named = extraction()
    for item in (*named["episodes"], *named["facts"], *named["profile"]):
        item["user_id"] = {"caro": "Caroline", "mel": "MEL"}[item["user_id"]]
    stub.script(completion(json.dumps(grouped(named))))
    got = await make_llm().extract(REQUEST)
    assert [e.user_id for e in got.episodes] == ["caro", "mel"]
    assert [f.user_id for f in got.facts] == ["caro", "mel"]
    assert [p.user_id for p in got.profile] == ["mel"]
