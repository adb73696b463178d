"""The LLM port over an OpenAI-compatible chat-completions endpoint.

OpenAI, DeepSeek, Qwen, Ollama, vLLM and llama.cpp's server all serve
``POST {base_url}/chat/completions``; the ``openai`` SDK (``AsyncOpenAI`` with
``base_url``) speaks to them. The SDK retries what may fare better at the HTTP
level (408, 409, 429, 5xx, timeouts, lost connections), honouring
``Retry-After``, with its own backoff, up to ``max_retries`` times.

What it cannot judge is the answer. Where the server constrains output
(``response_format`` with a JSON schema, :mod:`hippograph.extraction.answer_schema`)
the answer has the right shape; a server that refuses the schema is asked for
a JSON object instead, and one that refuses that for plain text, once per
client (``structured_output=auto``). Whatever comes back is validated: an
answer that is not the JSON asked for, or is in another language than the
conversation, is asked again, with the rejected answer and the reason, up to
``max_retries`` times, after a pause of ``backoff_s`` doubling up to
``max_backoff_s``. An answer cut at ``max_tokens`` fails at once (the same
question would be cut again). Items of a valid extraction that are wrong on
their own (a user id not in the unit, no message cited, a made-up profile
value) are dropped by :mod:`hippograph.extraction.repair` and the rest is kept.
At most ``concurrency`` questions are in flight at once, so a local server
with few slots is not handed requests that would wait out their timeout in
its queue. Tokens and HTTP requests are summed over every attempt.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx2
import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from hippograph.adapters.llm_answers import (
    NOT_SHORTER,
    Rejected,
    correction,
    parse_extraction,
    parse_fuzz,
    parse_reflection,
    request_json,
    system_prompt,
)
from hippograph.adapters.llm_errors import LLMError, server_message, unavailable
from hippograph.extraction.answer_schema import (
    extraction_schema,
    summary_schema,
)
from hippograph.extraction.schema import Extraction, ExtractionRequest
from hippograph.fuzzing import FuzzRequest, FuzzText, language_of, offline_fuzz
from hippograph.ports import Usage
from hippograph.reflection import ReflectionRequest, ReflectionSummary
from hippograph.settings import LLMSettings

T = TypeVar("T")

log = logging.getLogger(__name__)

# response_format levels, strongest first; ``auto`` steps down when refused.
_FORMATS = ("json_schema", "json_object", "none")
# What servers say when they refuse a format (OpenAI, vLLM, Ollama, llama.cpp).
_FORMAT_WORDS = ("response_format", "json_schema", "schema", "json", "grammar", "format")
# The SDK refuses to start without credentials; a keyless server (Ollama) gets
# this placeholder, which never leaves the process: the header is omitted.
_NO_KEY = "no-key"


class _Requests:
    """HTTP requests sent for one question, the SDK's own retries included."""

    def __init__(self) -> None:
        self.sent = 0


# The SDK retries inside one call and does not say how often when it gives up,
# yet every request costs; they are counted where they leave, per question
# (each question runs in its own task context, so concurrent ones do not mix).
_requests: ContextVar[_Requests | None] = ContextVar("_requests", default=None)


async def _count_request(_request: httpx2.Request) -> None:
    requests = _requests.get()
    if requests is not None:
        requests.sent += 1


@dataclass(frozen=True)
class _Answer:
    """One completion: its text (None when it holds none: ``missing`` says why), what
    it cost, and whether it was cut at ``max_tokens``."""

    content: str | None
    usage: Usage
    truncated: bool = False
    missing: str = ""


def _answer(completion: object) -> _Answer:
    """The answer of a completion, read field by field: a server's odd response (no
    choices, no message, tokens given as null) is an answer to ask again, and what
    it cost still counts."""
    tokens = getattr(completion, "usage", None)
    used = Usage(
        prompt_tokens=getattr(tokens, "prompt_tokens", None) or 0,
        completion_tokens=getattr(tokens, "completion_tokens", None) or 0,
    )
    choices = getattr(completion, "choices", None)
    if not isinstance(completion, ChatCompletion) or not choices:
        return _Answer(None, used, missing=f"no choices: {str(completion)[:200]!r}")
    choice = choices[0]
    content = getattr(getattr(choice, "message", None), "content", None)
    if not isinstance(content, str):
        return _Answer(None, used, missing="message content is not text")
    return _Answer(content, used, truncated=choice.finish_reason == "length")


def _response_format(level: str, name: str, schema: dict[str, Any]) -> Any:
    """``response_format`` at ``level`` (json_schema, json_object, none)."""
    if level == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
    if level == "json_object":
        return {"type": "json_object"}
    return openai.omit


class OpenAICompatibleLLM:
    """An ``LLM`` backed by a chat-completions endpoint; close it with ``aclose``."""

    def __init__(self, settings: LLMSettings) -> None:
        self._settings = settings
        self._prompt = system_prompt(settings.language)
        key = settings.api_key.get_secret_value() if settings.api_key is not None else None
        self._client = openai.AsyncOpenAI(
            base_url=settings.base_url,
            api_key=key or _NO_KEY,
            max_retries=settings.max_retries,
            timeout=settings.timeout_s,
            http_client=openai.DefaultAsyncHttpxClient(event_hooks={"request": [_count_request]}),
        )
        # The SDK adds OPENAI_ORG_ID and OPENAI_PROJECT_ID from the environment
        # to every request, to whatever server: they are OpenAI's, never sent.
        self._headers: dict[str, str | openai.Omit] = {
            "OpenAI-Organization": openai.omit,
            "OpenAI-Project": openai.omit,
        }
        if not key:
            self._headers["Authorization"] = openai.omit
        # The levels this client may still use; ``auto`` drops the refused ones.
        chosen = settings.structured_output
        self._formats = list(_FORMATS) if chosen == "auto" else [chosen]
        self._gate = asyncio.Semaphore(settings.concurrency)
        self._in_flight = 0
        self.peak_in_flight = 0  # the most questions in flight at once, for tests and benches
        self.spent = Usage()  # every question's tokens and requests, summed

    @property
    def name(self) -> str:
        """The model's name, recorded on jobs."""
        return self._settings.model

    @property
    def structured_output(self) -> str:
        """The ``response_format`` level in use (it steps down when a server refuses one)."""
        return self._formats[0]

    async def aclose(self) -> None:
        """Close the SDK client and its connections."""
        await self._client.close()

    async def __aenter__(self) -> OpenAICompatibleLLM:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def extract(
        self, request: ExtractionRequest, vectors: Sequence[Sequence[float]] | None = None
    ) -> Extraction:
        """Everything the unit yields, validated; ``vectors`` are not needed here."""
        extraction, usage = await self._ask(
            self._prompt,
            request_json(request),
            lambda content: parse_extraction(content, request, self.name),
            ("extraction", extraction_schema(list(request.users), len(request.messages))),
        )
        return extraction.model_copy(update={"usage": usage})

    async def reflect(self, request: ReflectionRequest) -> ReflectionSummary:
        """A reflection over one theme's facts, validated."""
        payload = json.dumps(
            {"user": request.user_name, "facts": request.facts}, ensure_ascii=False
        )
        language = language_of(" ".join(request.facts))
        summary, usage = await self._ask(
            system_prompt(self._settings.language, "reflect"),
            payload,
            lambda content: parse_reflection(content, language),
            ("reflection", summary_schema(600)),
        )
        return summary.model_copy(update={"usage": usage})

    async def fuzz(self, request: FuzzRequest) -> FuzzText:
        """A memory's text at a fainter level, and its topic, validated."""
        payload = json.dumps(
            {"level": request.level.value, "user": request.user_name, "memory": request.text},
            ensure_ascii=False,
        )
        language = request.language if request.language in ("en", "zh") else "en"
        try:
            answer, usage = await self._ask(
                system_prompt(language, "fuzz"),
                payload,
                lambda content: parse_fuzz(content, request, language),
                ("fuzzed_memory", summary_schema(400)),
            )
        except LLMError as error:
            if error.reason != NOT_SHORTER:
                raise
            # Repaired rather than failed: the forget run goes on with the
            # extractive fuzzer's text for this one memory.
            log.warning("%s; using the offline fuzzer's text", error)
            return offline_fuzz(request).model_copy(update={"usage": error.usage})
        return answer.model_copy(update={"usage": usage})

    async def _ask(
        self,
        prompt: str,
        user_content: str,
        parse: Callable[[str], T],
        schema: tuple[str, dict[str, Any]],
    ) -> tuple[T, Usage]:
        """One JSON answer, parsed by ``parse``; asked again while the answer is invalid.

        A question asked again carries the rejected answer and the reason: at
        temperature 0 the bare question would only get the same answer back.
        """
        question: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": prompt},
            {"role": "user", "content": user_content},
        ]
        requests = _Requests()
        token = _requests.set(requests)
        try:
            parsed, usage = await self._attempts(question, parse, schema, requests)
        except LLMError as error:
            self.spent = self.spent.plus(error.usage)
            raise
        finally:
            _requests.reset(token)
        self.spent = self.spent.plus(usage)
        return parsed, usage

    async def _attempts(
        self,
        question: list[ChatCompletionMessageParam],
        parse: Callable[[str], T],
        schema: tuple[str, dict[str, Any]],
        requests: _Requests,
    ) -> tuple[T, Usage]:
        """The attempts of one question: the parsed answer and what all of them cost."""
        messages = question
        attempts = self._settings.max_retries + 1
        tokens = Usage()
        for attempt in range(1, attempts + 1):
            before = requests.sent
            try:
                answer = await self._call(messages, schema)
            except openai.APIError as error:
                # The SDK retried what was worth retrying: this is final.
                message, status = unavailable(
                    self.name, error, requests.sent - before, self._settings.timeout_s
                )
                usage = tokens.plus(Usage(calls=requests.sent))
                raise LLMError(message, status=status, usage=usage) from None
            tokens = tokens.plus(answer.usage)
            content = answer.content or ""
            if answer.truncated:
                raise LLMError(
                    f"LLM {self.name} stopped at max_tokens="
                    f"{self._settings.max_tokens} before its answer was complete: "
                    "raise HIPPOGRAPH_LLM__MAX_TOKENS or make units shorter "
                    "(HIPPOGRAPH_MEMORIZE__MAX_UNIT)",
                    status=None,
                    usage=tokens.plus(Usage(calls=requests.sent)),
                    reason="stopped at max_tokens",
                )
            if answer.content is None:
                problem = Rejected("returned an invalid response", answer.missing)
            else:
                try:
                    return parse(content), tokens.plus(Usage(calls=requests.sent))
                except Rejected as failure:
                    problem = failure
            if attempt == attempts:
                raise LLMError(
                    f"LLM {self.name} {problem.what} after {attempt} attempts: {problem.detail}",
                    status=None,
                    usage=tokens.plus(Usage(calls=requests.sent)),
                    reason=problem.what,
                )
            if content:
                messages = [*question, *correction(content, problem)]
            delay = self._pause(attempt)
            args = (self.name, attempt, attempts, problem, delay)
            log.warning("LLM %s attempt %d/%d %s; asking again in %.2f s", *args)
            await asyncio.sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _pause(self, attempt: int) -> float:
        backoff = self._settings.backoff_s * 2.0 ** (attempt - 1)
        return min(backoff, self._settings.max_backoff_s)

    async def _call(
        self, messages: list[ChatCompletionMessageParam], schema: tuple[str, dict[str, Any]]
    ) -> _Answer:
        """One question (the SDK's retries inside), within the concurrency bound."""
        async with self._gate:
            self._in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
            try:
                return await self._formatted(messages, schema)
            finally:
                self._in_flight -= 1

    async def _formatted(
        self, messages: list[ChatCompletionMessageParam], schema: tuple[str, dict[str, Any]]
    ) -> _Answer:
        """The answer at the strongest ``response_format`` the server accepts."""
        while True:
            level = self._formats[0]
            try:
                completion = await self._client.chat.completions.create(
                    model=self._settings.model,
                    temperature=self._settings.temperature,
                    max_tokens=self._settings.max_tokens,
                    response_format=_response_format(level, *schema),
                    messages=messages,
                    extra_headers=self._headers,
                )
            except openai.BadRequestError as error:
                # A server that does not know a format says so with a 400; with
                # a weaker one left, step down for good, else the 400 stands.
                if len(self._formats) == 1 or not _about_format(error):
                    raise
                if self._formats[0] == level:
                    self._formats.pop(0)
                    log.warning(
                        "LLM %s refused response_format %s; using %s from now on",
                        self.name,
                        level,
                        self._formats[0],
                    )
                continue
            return _answer(completion)


def _about_format(error: openai.BadRequestError) -> bool:
    """Whether a 400 is about ``response_format`` (not the model, the key, the size)."""
    said = server_message(error).lower()
    return any(word in said for word in _FORMAT_WORDS)
