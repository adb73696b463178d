"""Ports: what the domain needs from the world outside the graph, as Protocols.

The embedder and the LLM (with ``Usage``, what an LLM call cost) live here;
``hippograph.adapters`` implements them (ONNX/PyTorch encoders, the offline
extractor, the OpenAI-compatible client). What a service needs from the graph
is declared beside that service (``hippograph/services/``), not here.

The LLM's request and answer types are only named for the type checker: the
modules that define them (extraction, reflection, fuzzing) import ``Usage``
from here, and a runtime import back would make a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel

from hippograph.errors import Unavailable
from hippograph.similarity import SimilarityScale

if TYPE_CHECKING:
    from hippograph.extraction.schema import Extraction, ExtractionRequest
    from hippograph.fuzzing import FuzzRequest, FuzzText
    from hippograph.reflection import ReflectionRequest, ReflectionSummary


class Usage(BaseModel):
    """Tokens an LLM call used (zero for the offline extractor)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    def plus(self, other: Usage) -> Usage:
        """The sum of two usages."""
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            calls=self.calls + other.calls,
        )


class ModelFailed(Unavailable):
    """An LLM call that gave no usable answer, and what its attempts cost (``usage``):
    a failed job records what it spent, the work done before the failure included."""

    def __init__(self, message: str, usage: Usage) -> None:
        super().__init__(message)
        self.usage = usage


class Embedder(Protocol):
    """Turns texts into unit vectors, off the event loop."""

    @property
    def model_name(self) -> str:
        """The model's name as configured."""
        ...

    @property
    def dimensions(self) -> int:
        """Length of every vector."""
        ...

    @property
    def precision(self) -> str:
        """What the model computes in (``float32``, ``int8``, ``bfloat16``), recorded with its
        vectors."""
        ...

    @property
    def scale(self) -> SimilarityScale:
        """Where this model's cosines mean a topic shift and a shared theme."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One normalised vector per text to store (a passage), in order."""
        ...

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """One normalised vector per search query (with the model's query prefix), in order."""
        ...


class LLM(Protocol):
    """Understands a MemUnit: summary, narrative, facts, profile (docs/design.md §5)."""

    @property
    def name(self) -> str:
        """What extracts (``offline`` or the model's name), recorded on jobs."""
        ...

    async def extract(
        self, request: ExtractionRequest, vectors: Sequence[Sequence[float]] | None = None
    ) -> Extraction:
        """Everything the unit yields; ``vectors`` are its messages' embeddings, if known."""
        ...

    async def reflect(self, request: ReflectionRequest) -> ReflectionSummary:
        """A reflection over one theme's facts about a user."""
        ...

    async def fuzz(self, request: FuzzRequest) -> FuzzText:
        """A memory's text at a fainter level (summary, tag), and its topic."""
        ...
