"""The OpenAI-compatible adapter, built against the stub server of ``tests/conftest.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from hippograph.adapters.openai_llm import OpenAICompatibleLLM
from hippograph.settings import LLMSettings
from tests.llm.stub_server import StubLLMServer

MakeLLM = Callable[..., OpenAICompatibleLLM]


@pytest.fixture
async def make_llm(stub: StubLLMServer) -> AsyncIterator[MakeLLM]:
    """Builds adapters pointed at the stub (fast timeouts and backoff); closes them after."""
    made: list[OpenAICompatibleLLM] = []

    def make(**overrides: Any) -> OpenAICompatibleLLM:
        options: dict[str, Any] = {
            "provider": "openai",
            "base_url": stub.base_url,
            "api_key": "sk-test",
            "model": "stub-model",
            "timeout_s": 0.5,
            "max_retries": 3,
            "backoff_s": 0.01,
            "max_backoff_s": 0.05,
            "temperature": 0.2,
        }
        llm = OpenAICompatibleLLM(LLMSettings(**(options | overrides)))
        made.append(llm)
        return llm

    yield make
    for llm in made:
        await llm.aclose()
