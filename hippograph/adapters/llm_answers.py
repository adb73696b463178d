"""The questions a model is asked and what its answers must be.

A question is a prompt from the package (``hippograph/prompts``) and the
MemUnit as compact JSON; an answer must be one JSON object (a fenced block
is accepted) of the shape asked for, in the conversation's language. What
fails those checks raises :class:`Rejected`, whose reason goes back to the
model when it is asked again; a valid extraction then loses the items that
cannot stand on their own (:mod:`hippograph.extraction.repair`).
"""

from __future__ import annotations

import json
import logging
import re
from functools import cache
from importlib import resources
from typing import Any, TypeVar

from openai.types.chat import ChatCompletionMessageParam
from pydantic import ValidationError

from hippograph.errors import ConfigError
from hippograph.extraction.answer_schema import ExtractionAnswer, as_extraction
from hippograph.extraction.repair import repaired
from hippograph.extraction.schema import Extraction, ExtractionRequest, UnitMessage
from hippograph.fuzzing import FuzzRequest, FuzzText, chinese_share, language_of
from hippograph.models import MemoryLevel
from hippograph.reflection import ReflectionSummary

log = logging.getLogger(__name__)
# How much of a rejected answer, and of the reason, goes back to the model.
_ECHO_CHARS = 4000
_DETAIL_CHARS = 500

_FENCED = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.DOTALL)
NOT_SHORTER = "did not shorten the memory"
_SHORTENED = frozenset({MemoryLevel.SUMMARY, MemoryLevel.TAG})
_LANGUAGE_NAMES = {"en": "English", "zh": "Chinese"}
# The least share of Chinese characters among the letters of a Chinese answer.
_SOME_CHINESE = 0.1
# An answer whose text is its ``content`` field (a reflection, a fuzzed memory).
_Answer = TypeVar("_Answer", ReflectionSummary, FuzzText)


class Rejected(Exception):
    """The answer was unusable (``what``, ``detail``); asking again may fare better."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail


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
    """The MemUnit as the user message: compact JSON of users, their profiles on
    record (if any), history and messages."""
    payload: dict[str, Any] = {"users": request.users}
    if request.profiles:
        payload["known_profile"] = request.profiles
    payload["history"] = [_message(m) for m in request.history]
    payload["messages"] = [_message(m) for m in request.messages]
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def json_object(content: str) -> dict[str, Any]:
    """The JSON object of an answer (a fenced block is accepted); ``Rejected`` otherwise."""
    fenced = _FENCED.match(content)
    try:
        data = json.loads(fenced[1] if fenced else content)
    except json.JSONDecodeError as error:
        raise Rejected("returned invalid JSON", f"{error}; content: {content[:200]!r}") from None
    if not isinstance(data, dict):
        raise Rejected("returned invalid JSON", f"expected an object, got {type(data).__name__}")
    data.pop("usage", None)  # never asked for; ours is measured, not reported by the model
    return data


def require_language(expected: str, text: str) -> None:
    """``Rejected`` when ``text`` is in another language than ``expected`` (en or zh).

    Chinese text names people, places and brands in Latin letters ("Ann搬到了
    Boston，在Google工作"), often more letters than its own characters: a
    Chinese answer needs only a tenth of its letters Chinese.
    """
    found = language_of(text)
    wrong = chinese_share(text) < _SOME_CHINESE if expected == "zh" else found != expected
    if text.strip() and wrong:
        name = _LANGUAGE_NAMES.get(expected, expected)
        raise Rejected(
            "answered in another language",
            f"the conversation is in {name}, the answer in {_LANGUAGE_NAMES[found]}; "
            f"write every text in {name}",
        )


def _answer(shape: type[_Answer], content: str, what: str, language: str) -> _Answer:
    """The answer's JSON object as ``shape``, its ``content`` in ``language``;
    ``Rejected`` (``returned an invalid <what>``) if it does not fit the shape."""
    try:
        answer = shape.model_validate(json_object(content))
    except ValidationError as error:
        raise Rejected(f"returned an invalid {what}", str(error)) from None
    require_language(language, answer.content)
    return answer


def parse_reflection(content: str, language: str) -> ReflectionSummary:
    """The model's answer as a ``ReflectionSummary``; ``Rejected`` if invalid."""
    return _answer(ReflectionSummary, content, "reflection", language)


def parse_fuzz(content: str, request: FuzzRequest, language: str) -> FuzzText:
    """The model's answer as a ``FuzzText``; ``Rejected`` if invalid.

    A summary or tag must be shorter than the memory: Qwen2.5-0.5B, asked for
    a summary, handed the memory back word for word.
    """
    answer = _answer(FuzzText, content, "fuzzed text", language)
    if request.level in _SHORTENED and len(answer.content) >= len(request.text):
        raise Rejected(
            NOT_SHORTER,
            f"a {request.level.value} must be shorter than the memory's "
            f"{len(request.text)} characters; it had {len(answer.content)}",
        )
    return answer


def parse_extraction(content: str, request: ExtractionRequest, model: str) -> Extraction:
    """The model's answer as an ``Extraction``, its unusable items dropped.

    ``Rejected`` if the answer as a whole is unusable: not JSON, not the
    extraction's shape, or in another language than the conversation.
    """
    data = json_object(content)
    try:
        extraction = as_extraction(ExtractionAnswer.model_validate(data))
    except ValidationError as error:
        raise Rejected("returned an invalid extraction", str(error)) from None
    written = " ".join([extraction.summary, *(f.content for f in extraction.facts)])
    require_language(request.language, written)
    fixed, repairs = repaired(extraction, request)
    if repairs.dropped:
        log.warning(
            "LLM %s: dropped %d item(s) of an extraction: %s",
            model,
            len(repairs.dropped),
            "; ".join(repairs.dropped),
        )
    return fixed


def correction(content: str, problem: Rejected) -> list[ChatCompletionMessageParam]:
    """The rejected answer and why, for the next attempt."""
    return [
        {"role": "assistant", "content": content[:_ECHO_CHARS]},
        {
            "role": "user",
            "content": f"That answer was rejected: it {problem.what}: "
            f"{problem.detail[:_DETAIL_CHARS]}. Answer again with the corrected JSON object only.",
        },
    ]
