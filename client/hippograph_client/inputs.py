"""What the client sends: typed inputs, each turned into the API's variables.

The input objects themselves (``NewMessage``, ``MemoryFilter``, ``Scoring``
and ``MemoryOp``'s fields) are written from the schema by ``python -m
codegen`` into ``input_types.py``; here are the builders an agent reads
(``MemoryOp.add`` …) and how any input becomes JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from hippograph_client.decode import camel
from hippograph_client.enums import MemoryKind, MemoryOpKind
from hippograph_client.input_types import MemoryFilter, MemoryOpFields, NewMessage, Scoring

__all__ = [
    "MemoryFilter",
    "MemoryOp",
    "NewMessage",
    "Scoring",
    "to_json",
    "variables_of",
]


def variables_of(values: Mapping[str, Any]) -> dict[str, Any]:
    """Python arguments as GraphQL variables: camelCase keys, None members left out.

    Leaving them out lets the schema's defaults apply, so the client never
    restates a default the server owns.
    """
    return {camel(name): to_json(raw) for name, raw in values.items() if raw is not None}


def to_json(raw: Any) -> Any:
    """An argument as JSON: enums by value, datetimes in ISO 8601, inputs as objects."""
    if isinstance(raw, Enum):
        return raw.value
    if isinstance(raw, datetime):
        return raw.isoformat()
    if is_dataclass(raw) and not isinstance(raw, type):
        return variables_of({f.name: getattr(raw, f.name) for f in fields(raw)})
    if isinstance(raw, Sequence) and not isinstance(raw, str):
        return [to_json(item) for item in raw]
    return raw


class MemoryOp(MemoryOpFields):
    """One memory operation of an agent.

    Build it with ``MemoryOp.add``, ``update``, ``boost``, ``delete`` or ``skip``.
    """

    @classmethod
    def add(
        cls,
        content: str,
        *,
        kind: MemoryKind | None = None,
        importance: float | None = None,
        client_id: str | None = None,
    ) -> MemoryOp:
        """ADD a memory (``client_id`` makes a retried batch add it once)."""
        return cls(
            MemoryOpKind.ADD, content=content, kind=kind, importance=importance, client_id=client_id
        )

    @classmethod
    def update(cls, id: str, content: str) -> MemoryOp:
        """UPDATE a memory: the new content supersedes it."""
        return cls(MemoryOpKind.UPDATE, id=id, content=content)

    @classmethod
    def boost(cls, id: str) -> MemoryOp:
        """BOOST a memory's importance by 0.3."""
        return cls(MemoryOpKind.BOOST, id=id)

    @classmethod
    def delete(cls, id: str, *, hard: bool = False) -> MemoryOp:
        """DELETE a memory (soft unless ``hard``)."""
        return cls(MemoryOpKind.DELETE, id=id, hard=hard)

    @classmethod
    def skip(cls) -> MemoryOp:
        """SKIP: nothing, recorded for the agent's log."""
        return cls(MemoryOpKind.SKIP)
