"""The LLM port over an OpenAI-compatible chat-completions endpoint.

OpenAI, DeepSeek, Qwen, Ollama and vLLM all serve ``POST {base_url}/chat/completions``.
The system prompt (``hippograph/prompts/extract.<language>.md``) describes the
JSON to return; the user message is the MemUnit as compact JSON. Whatever
comes back is validated against ``Extraction`` and against the request (known
user ids, real message indices); nothing is dropped or repaired: an invalid
answer is a failed attempt, retried like a 429, a 5xx, a timeout or a lost
connection, with exponential backoff. Tokens are summed over every attempt.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Sequence
from functools import cache
from importlib import resources
from typing import Any, TypeVar

import httpx
from pydantic import ValidationError

from hippograph.errors import ConfigError, Unavailable
from hippograph.extraction.schema import (
    Extraction,
    ExtractionRequest,
    Fact,
    ProfileAttribute,
    UnitMessage,
    Usage,
)
from hippograph.fuzzing import FuzzRequest, FuzzText
from hippograph.reflection import ReflectionRequest, ReflectionSummary
from hippograph.settings import LLMSettings

T = TypeVar("T")

log = logging.getLogger(__name__)

# 408 and 409 are transient by RFC and by OpenAI's own clients; other 4xx will not improve.
_RETRIED_4XX = frozenset({408, 409, 429})
_FENCED = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.DOTALL)
_DETAIL_CHARS = 500


class LLMError(Unavailable):
    """The model gave no usable extraction; ``status`` is the last HTTP status, if any."""

    def __init__(self, message: str, status: int | None, usage: Usage) -> None:
        super().__init__(message)
        self.status = status
        self.usage = usage  # what the failed attempts cost, for the job's record


class _Failed(Exception):
    """One attempt failed; ``retried`` says whether another attempt may fare better."""

    def __init__(
        self,
        what: str,
        detail: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retried: bool = True,
    ) -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail
        self.status = status
        self.retry_after = retry_after
        self.retried = retried


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


def _server_message(response: httpx.Response) -> str:
    try:
        error = response.json().get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = None
    return str(message or response.text)[:_DETAIL_CHARS]


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asks us to wait (``retry-after-ms`` or ``Retry-After``), if any."""
    for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return max(0.0, float(response.headers[header]) * scale)
        except (KeyError, ValueError):
            continue  # absent, or an HTTP date: fall back to our own backoff
    return None


class OpenAICompatibleLLM:
    """An ``LLM`` backed by a chat-completions endpoint; close it with ``aclose``."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._settings = settings
        self._prompt = system_prompt(settings.language)
        self._url = settings.base_url.rstrip("/") + "/chat/completions"
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(transport=transport)
        self._headers = {"Content-Type": "application/json"}
        if settings.api_key is not None:
            self._headers["Authorization"] = f"Bearer {settings.api_key.get_secret_value()}"

    @property
    def name(self) -> str:
        """The model's name, recorded on jobs."""
        return self._settings.model

    async def aclose(self) -> None:
        """Close the HTTP client, unless it was lent to us."""
        if self._owns_client:
            await self._client.aclose()

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
        """One JSON answer, parsed by ``parse``; retried on everything worth retrying."""
        body = {
            "model": self._settings.model,
            "temperature": self._settings.temperature,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": prompt},
                {"role": "user", "content": user_content},
            ],
        }
        attempts = self._settings.max_retries + 1
        usage = Usage()
        for attempt in range(1, attempts + 1):
            usage = usage.plus(Usage(calls=1))
            try:
                content, used = await self._call(body)
                usage = usage.plus(used)
                return parse(content), usage
            except _Failed as failure:
                if not failure.retried or attempt == attempts:
                    after = f" after {attempt} attempts" if failure.retried else ""
                    raise LLMError(
                        f"LLM {self.name} {failure.what}{after}: {failure.detail}",
                        status=failure.status,
                        usage=usage,
                    ) from None
                delay = self._delay(attempt, failure.retry_after)
                args = (self.name, attempt, attempts, failure, delay)
                log.warning("LLM %s attempt %d/%d %s; retrying in %.2f s", *args)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = self._settings.backoff_s * 2 ** (attempt - 1)
        return min(backoff if retry_after is None else retry_after, self._settings.max_backoff_s)

    async def _call(self, body: dict[str, Any]) -> tuple[str, Usage]:
        """One HTTP call: the answer's content and its tokens; ``_Failed`` if worth retrying."""
        try:
            response = await self._client.post(
                self._url,
                json=body,
                headers=self._headers,
                timeout=httpx.Timeout(self._settings.timeout_s),
            )
        except httpx.TimeoutException as error:
            raise _Failed("timed out", f"{self._settings.timeout_s} s ({error!r})") from None
        except httpx.TransportError as error:
            raise _Failed("could not be reached", repr(error)) from None
        status = response.status_code
        if status >= 400:
            retried = status >= 500 or status in _RETRIED_4XX
            what = "answered" if retried else "rejected the request with"
            raise _Failed(
                f"{what} HTTP {status}",
                _server_message(response),
                status=status,
                retry_after=_retry_after(response),
                retried=retried,
            )
        try:
            answer = response.json()
            content = answer["choices"][0]["message"]["content"]
            tokens = answer.get("usage") or {}
            used = Usage(
                prompt_tokens=int(tokens.get("prompt_tokens") or 0),
                completion_tokens=int(tokens.get("completion_tokens") or 0),
            )
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
            detail = f"{error!r}; body: {response.text[:200]!r}"
            raise _Failed("returned an invalid response", detail) from None
        if not isinstance(content, str):
            raise _Failed("returned an invalid response", "message content is not text")
        return content, used
