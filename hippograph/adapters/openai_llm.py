"""The LLM port over an OpenAI-compatible chat-completions endpoint.

OpenAI, DeepSeek, Qwen, Ollama and vLLM all serve ``POST {base_url}/chat/completions``;
the ``openai`` SDK (``AsyncOpenAI`` with ``base_url``) speaks to them. The SDK
retries what may fare better at the HTTP level (408, 409, 429, 5xx, timeouts,
lost connections), honouring ``Retry-After``, with its own backoff, up to
``max_retries`` times. What it cannot judge is the answer: the system prompt
(``hippograph/prompts/extract.<language>.md``) describes the JSON to return, the
user message is the MemUnit as compact JSON, and whatever comes back is
validated against ``Extraction`` and against the request (known user ids, real
message indices). Nothing is dropped or repaired: an invalid answer is asked
again, up to ``max_retries`` times, after a pause of ``backoff_s`` doubling up
to ``max_backoff_s``. Tokens and HTTP requests are summed over every attempt.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from functools import cache
from importlib import resources
from typing import Any, TypeVar

import httpx2
import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from pydantic import ValidationError

from hippograph.errors import ConfigError, Unavailable
from hippograph.extraction.schema import (
    Extraction,
    ExtractionRequest,
    Fact,
    ProfileAttribute,
    UnitMessage,
)
from hippograph.fuzzing import FuzzRequest, FuzzText
from hippograph.ports import Usage
from hippograph.reflection import ReflectionRequest, ReflectionSummary
from hippograph.settings import LLMSettings

T = TypeVar("T")

log = logging.getLogger(__name__)

_FENCED = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.DOTALL)
_DETAIL_CHARS = 500
# The SDK refuses to start without credentials; a keyless server (Ollama) gets
# this placeholder, which never leaves the process: the header is omitted.
_NO_KEY = "no-key"


class LLMError(Unavailable):
    """The model gave no usable extraction; ``status`` is the last HTTP status, if any."""

    def __init__(self, message: str, status: int | None, usage: Usage) -> None:
        super().__init__(message)
        self.status = status
        self.usage = usage  # what the failed attempts cost, for the job's record


class _Failed(Exception):
    """The answer was unusable; asking again may fare better."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail


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


@cache
def system_prompt(language: str, task: str = "extract") -> str:
    """The prompt of ``task`` (extract, reflect) in ``language`` (en, zh), from the package."""
    prompt = resources.files("hippograph").joinpath("prompts").joinpath(f"{task}.{language}.md")
    try:
        return prompt.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"HIPPOGRAPH_LLM__LANGUAGE={language!r} has no prompt") from None


def _message(m: UnitMessage) -> dict[str, Any]:
    return {"index": m.index, "speaker": m.speaker, "time": m.ts.isoformat(), "text": m.text}


def request_json(request: ExtractionRequest) -> str:
    """The MemUnit as the user message: compact JSON of users, history and messages."""
    payload = {
        "users": request.users,
        "history": [_message(m) for m in request.history],
        "messages": [_message(m) for m in request.messages],
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _json_object(content: str) -> dict[str, Any]:
    """The JSON object of an answer (a fenced block is accepted); ``_Failed`` otherwise."""
    fenced = _FENCED.match(content)
    try:
        data = json.loads(fenced[1] if fenced else content)
    except json.JSONDecodeError as error:
        raise _Failed("returned invalid JSON", f"{error}; content: {content[:200]!r}") from None
    if not isinstance(data, dict):
        raise _Failed("returned invalid JSON", f"expected an object, got {type(data).__name__}")
    data.pop("usage", None)  # never asked for; ours is measured, not reported by the model
    return data


def _parse_reflection(content: str) -> ReflectionSummary:
    """The model's answer as a ``ReflectionSummary``; ``_Failed`` if invalid."""
    try:
        return ReflectionSummary.model_validate(_json_object(content))
    except ValidationError as error:
        raise _Failed("returned an invalid reflection", str(error)) from None


def _parse_fuzz(content: str) -> FuzzText:
    """The model's answer as a ``FuzzText``; ``_Failed`` if invalid."""
    try:
        return FuzzText.model_validate(_json_object(content))
    except ValidationError as error:
        raise _Failed("returned an invalid fuzzed text", str(error)) from None


def _parse_extraction(content: str, request: ExtractionRequest) -> Extraction:
    """The model's answer as an ``Extraction``; ``_Failed`` if anything in it is invalid."""
    data = _json_object(content)
    try:
        extraction = Extraction.model_validate(data)
    except ValidationError as error:
        raise _Failed("returned an invalid extraction", str(error)) from None
    users, indices = set(request.users), {m.index for m in request.messages}
    cites: list[Fact | ProfileAttribute] = [*extraction.facts, *extraction.profile]
    owners = {e.user_id for e in extraction.episodes} | {item.user_id for item in cites}
    if strangers := sorted(owners - users):
        raise _Failed("returned an invalid extraction", f"unknown user ids {strangers}")
    cited = {i for item in cites for i in item.message_indices}
    if unknown := sorted(cited - indices):
        raise _Failed("returned an invalid extraction", f"unknown message indices {unknown}")
    return extraction


def _server_message(error: openai.APIStatusError) -> str:
    body = error.body
    message = body.get("message") if isinstance(body, Mapping) else body
    return str(message or error.response.text)[:_DETAIL_CHARS]


def _unavailable(
    name: str, error: openai.APIError, requests: int, timeout_s: float
) -> tuple[str, int | None]:
    """The message and HTTP status of an ``LLMError`` for what the SDK gave up on."""
    after = f" after {requests} attempts" if requests > 1 else ""
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        what = "rejected the request with" if status < 500 else "answered"
        return f"LLM {name} {what} HTTP {status}{after}: {_server_message(error)}", status
    if isinstance(error, openai.APITimeoutError):
        return f"LLM {name} timed out{after}: {timeout_s} s", None
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__ or error
        return f"LLM {name} could not be reached{after}: {cause!r}", None
    return f"LLM {name} returned an invalid response{after}: {error}", None


def _content(completion: object) -> tuple[str, Usage]:
    """The answer's text and its tokens; ``_Failed`` if the response has none."""
    if not isinstance(completion, ChatCompletion) or not completion.choices:
        raise _Failed("returned an invalid response", f"no choices: {str(completion)[:200]!r}")
    content = completion.choices[0].message.content
    if not isinstance(content, str):
        raise _Failed("returned an invalid response", "message content is not text")
    tokens = completion.usage
    used = Usage(
        prompt_tokens=tokens.prompt_tokens if tokens else 0,
        completion_tokens=tokens.completion_tokens if tokens else 0,
    )
    return content, used


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
        self._headers: dict[str, str | openai.Omit] = {} if key else {"Authorization": openai.omit}

    @property
    def name(self) -> str:
        """The model's name, recorded on jobs."""
        return self._settings.model

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
            self._prompt, request_json(request), lambda content: _parse_extraction(content, request)
        )
        return extraction.model_copy(update={"usage": usage})

    async def reflect(self, request: ReflectionRequest) -> ReflectionSummary:
        """A reflection over one theme's facts, validated."""
        payload = json.dumps(
            {"user": request.user_name, "facts": request.facts}, ensure_ascii=False
        )
        summary, usage = await self._ask(
            system_prompt(self._settings.language, "reflect"), payload, _parse_reflection
        )
        return summary.model_copy(update={"usage": usage})

    async def fuzz(self, request: FuzzRequest) -> FuzzText:
        """A memory's text at a fainter level, and its topic, validated."""
        payload = json.dumps(
            {"level": request.level.value, "user": request.user_name, "memory": request.text},
            ensure_ascii=False,
        )
        answer, usage = await self._ask(
            system_prompt(request.language if request.language in ("en", "zh") else "en", "fuzz"),
            payload,
            _parse_fuzz,
        )
        return answer.model_copy(update={"usage": usage})

    async def _ask(
        self, prompt: str, user_content: str, parse: Callable[[str], T]
    ) -> tuple[T, Usage]:
        """One JSON answer, parsed by ``parse``; asked again while the answer is invalid."""
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": prompt},
            {"role": "user", "content": user_content},
        ]
        attempts = self._settings.max_retries + 1
        requests = _Requests()
        token = _requests.set(requests)
        tokens = Usage()
        try:
            for attempt in range(1, attempts + 1):
                before = requests.sent
                try:
                    content, used = await self._call(messages)
                    tokens = tokens.plus(used)
                    return parse(content), tokens.plus(Usage(calls=requests.sent))
                except openai.APIError as error:
                    # The SDK retried what was worth retrying: this is final.
                    message, status = _unavailable(
                        self.name, error, requests.sent - before, self._settings.timeout_s
                    )
                    usage = tokens.plus(Usage(calls=requests.sent))
                    raise LLMError(message, status=status, usage=usage) from None
                except _Failed as failure:
                    if attempt == attempts:
                        raise LLMError(
                            f"LLM {self.name} {failure.what} after {attempt} attempts: "
                            f"{failure.detail}",
                            status=None,
                            usage=tokens.plus(Usage(calls=requests.sent)),
                        ) from None
                    delay = self._pause(attempt)
                    args = (self.name, attempt, attempts, failure, delay)
                    log.warning("LLM %s attempt %d/%d %s; asking again in %.2f s", *args)
                    await asyncio.sleep(delay)
            raise AssertionError("unreachable: the last attempt returns or raises")
        finally:
            _requests.reset(token)

    def _pause(self, attempt: int) -> float:
        backoff = self._settings.backoff_s * 2.0 ** (attempt - 1)
        return min(backoff, self._settings.max_backoff_s)

    async def _call(self, messages: list[ChatCompletionMessageParam]) -> tuple[str, Usage]:
        """One SDK call (its retries inside): the answer's text and tokens."""
        completion = await self._client.chat.completions.create(
            model=self._settings.model,
            temperature=self._settings.temperature,
            response_format={"type": "json_object"},
            messages=messages,
            extra_headers=self._headers,
        )
        return _content(completion)
