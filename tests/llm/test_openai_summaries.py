"""Reflection and fuzzing through the OpenAI-compatible adapter, against the HTTP stub.

The real model's test shows that a small model's text reaches the graph;
these show what the adapter does with the answers a model gets wrong.
"""

from __future__ import annotations

import json
import logging

import pytest

from hippograph.adapters.llm_errors import LLMError
from hippograph.fuzzing import FuzzRequest, offline_fuzz
from hippograph.models import MemoryLevel
from hippograph.ports import Usage
from hippograph.reflection import ReflectionRequest
from tests.llm.conftest import MakeLLM
from tests.llm.stub_server import StubLLMServer, completion, error

FACTS = ["Ann drinks two flat whites every morning", "Ann grinds her own coffee beans"]
REFLECTION = ReflectionRequest(user_name="Ann", facts=FACTS)
MEMORY = "Ann drinks two flat whites every morning at the cafe near her office in Leeds"
SUMMARY = FuzzRequest(text=MEMORY, level=MemoryLevel.SUMMARY, user_name="Ann")


def _answer(content: str, topic: str = "coffee") -> str:
    return json.dumps({"content": content, "topic": topic})


async def test_a_reflection_is_the_models_text_with_its_usage(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(completion(_answer("Ann's mornings revolve around coffee."), 120, 15))
    summary = await make_llm().reflect(REFLECTION)
    assert (summary.content, summary.topic) == ("Ann's mornings revolve around coffee.", "coffee")
    assert summary.usage == Usage(prompt_tokens=120, completion_tokens=15, calls=1)
    asked = json.loads(stub.received[0].body["messages"][-1]["content"])
    assert asked == {"user": "Ann", "facts": FACTS}


async def test_a_reflection_without_text_or_in_another_language_is_asked_again(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(
        completion(json.dumps({"topic": "coffee"})),
        completion(_answer("安每天早上喝咖啡。")),
        completion(_answer("Ann loves her morning coffee.")),
    )
    summary = await make_llm().reflect(REFLECTION)
    assert summary.content == "Ann loves her morning coffee."
    assert summary.usage.calls == 3


async def test_a_fuzzed_summary_is_the_models_shorter_text(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(completion(_answer("Ann has flat whites each morning.")))
    fuzzed = await make_llm().fuzz(SUMMARY)
    assert (fuzzed.content, fuzzed.topic) == ("Ann has flat whites each morning.", "coffee")
    asked = json.loads(stub.received[0].body["messages"][-1]["content"])
    assert asked == {"level": "summary", "user": "Ann", "memory": MEMORY}


async def test_a_model_that_never_shortens_the_memory_gets_the_offline_fuzzers_text(
    stub: StubLLMServer, make_llm: MakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    # A small model asked for a summary hands the memory back word for word:
    # the forget run goes on with the extractive text, and the calls are counted.
    stub.script(*[completion(_answer(MEMORY), 80, 20)] * 4)
    with caplog.at_level(logging.WARNING, "hippograph.adapters.openai_llm"):
        fuzzed = await make_llm().fuzz(SUMMARY)
    offline = offline_fuzz(SUMMARY)
    assert (fuzzed.content, fuzzed.topic) == (offline.content, offline.topic)
    assert fuzzed.usage == Usage(prompt_tokens=320, completion_tokens=80, calls=4)
    assert caplog.records[-1].getMessage().endswith("; using the offline fuzzer's text")


async def test_a_fuzz_the_server_refuses_is_an_error_not_a_fallback(
    stub: StubLLMServer, make_llm: MakeLLM
) -> None:
    stub.script(error(400, "Unknown model 'stub-model'"))
    with pytest.raises(LLMError) as raised:
        await make_llm().fuzz(SUMMARY)
    assert raised.value.status == 400
