"""The JSON schemas a model must answer in, for servers that constrain output.

OpenAI, vLLM and llama.cpp accept ``response_format: {"type": "json_schema"}``
and then cannot answer anything else: no missing field, no wrong name, no
prose. The schemas are tighter than the models they are validated against
(``Extraction``, ``ReflectionSummary``, ``FuzzText``): every string and list
has a bound, so a small local model cannot ramble for minutes (on a CPU every
output token costs tens of milliseconds), and only the fields a model writes
are asked for (``usage`` and ``entities`` are ours). Lengths are in
characters; the prompts say the same numbers.
"""

from __future__ import annotations

from typing import Any

# Bounds of the extraction's parts, in characters and items.
SUMMARY_CHARS = 400
NARRATIVE_CHARS = 1200
EPISODE_CHARS = 800
FACT_CHARS = 300
PROFILE_VALUE_CHARS = 120
MAX_FACTS = 12
MAX_PROFILE = 8
MAX_KEYWORDS = 10
MAX_INDICES = 12


def _text(max_chars: int, min_chars: int = 1) -> dict[str, Any]:
    return {"type": "string", "minLength": min_chars, "maxLength": max_chars}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _indices() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": MAX_INDICES}


def extraction_schema(user_ids: list[str]) -> dict[str, Any]:
    """The extraction's schema, its ``user_id`` fields limited to ``user_ids``."""
    user = {"type": "string", "enum": user_ids}
    episode = _object({"user_id": user, "title": _text(120), "narrative": _text(EPISODE_CHARS)})
    fact = _object(
        {
            "user_id": user,
            "kind": {"type": "string", "enum": ["semantic", "event"]},
            "content": _text(FACT_CHARS),
            "importance": {"type": "number", "minimum": 0, "maximum": 1},
            "message_indices": _indices(),
            "topic": _text(40, 0),
        }
    )
    attribute = {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,40}$"}
    profile = _object(
        {
            "user_id": user,
            "attribute": attribute,
            "value": _text(PROFILE_VALUE_CHARS),
            "message_indices": _indices(),
        }
    )
    return _object(
        {
            "summary": _text(SUMMARY_CHARS),
            "narrative": _text(NARRATIVE_CHARS),
            "subject": _text(120),
            "keywords": {"type": "array", "items": _text(40), "maxItems": MAX_KEYWORDS},
            "episodes": {"type": "array", "items": episode, "maxItems": len(user_ids)},
            "facts": {"type": "array", "items": fact, "maxItems": MAX_FACTS},
            "profile": {"type": "array", "items": profile, "maxItems": MAX_PROFILE},
        }
    )


def summary_schema(max_chars: int) -> dict[str, Any]:
    """A reflection's or a fuzzed memory's schema: its text and its topic."""
    return _object({"content": _text(max_chars), "topic": _text(60, 0)})
