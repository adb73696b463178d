"""What search needs from the graph: candidates, cosines, counts, and the touch.

``graph.search.SearchGraph`` implements it (structurally, checked by mypy
where the composition root hands it to ``SearchService``). Candidates carry
only what ranking reads; keyword hits come without a cosine, because the
keyword query starts before the query is embedded: the fetcher asks
``cosines``/``unit_cosines`` for them once the vector is ready.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from hippograph.models import MemoryFilter
from hippograph.scoring import Candidate


class SearchStore(Protocol):
    """Candidate generation (see graph/search.py)."""

    async def vector_exact(
        self,
        user_id: str,
        vector: Sequence[float],
        k: int,
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[Candidate]: ...
    async def memory_vectors(
        self, user_id: str, memory_filter: MemoryFilter, now: datetime
    ) -> list[tuple[str, list[float]]]:
        """The user's memories that pass the filter, with their vectors, in one read."""
        ...

    async def vector_index(
        self,
        user_id: str,
        vector: Sequence[float],
        candidates: int,
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[Candidate]: ...
    def scoped_vector_index(self) -> bool:
        """Whether ``vector_index`` ranks only the user's memories (no oversampling needed)."""
        ...

    async def keyword(
        self,
        user_id: str,
        terms: Sequence[str],
        candidates: int,
        memory_filter: MemoryFilter,
        now: datetime,
        scoped: bool = True,
    ) -> list[Candidate]: ...
    async def unit_vector_exact(
        self, user_id: str, vector: Sequence[float], k: int, memory_filter: MemoryFilter
    ) -> list[Candidate]: ...
    async def unit_vector_index(
        self, user_id: str, vector: Sequence[float], candidates: int, memory_filter: MemoryFilter
    ) -> list[Candidate]: ...
    async def unit_keyword(
        self,
        user_id: str,
        terms: Sequence[str],
        candidates: int,
        memory_filter: MemoryFilter,
        scoped: bool = True,
    ) -> list[Candidate]: ...
    async def cosines(self, ids: Sequence[str], vector: Sequence[float]) -> dict[str, float]: ...
    async def neighbours(
        self,
        user_id: str,
        positions: Sequence[tuple[str, int]],
        vector: Sequence[float],
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[Candidate]:
        """The user's memories at these (session id, seq) positions, with their cosine."""
        ...

    async def unit_cosines(
        self, ids: Sequence[str], vector: Sequence[float]
    ) -> dict[str, float]: ...
    async def count_units(self, user_id: str | None) -> int: ...
    async def sample_search_text(self, user_id: str, limit: int) -> list[str]: ...
    async def speakers(self, user_id: str, sessions: int, messages: int) -> list[str]:
        """Who spoke in up to ``messages`` messages of the user's ``sessions`` latest sessions."""
        ...

    async def touch(self, memory_ids: Sequence[str], now: datetime) -> bool: ...


class EntityWalkStore(Protocol):
    """Search's walk over the entity graph (see graph/entities.py)."""

    async def walk(
        self,
        user_id: str,
        norms: Sequence[str],
        cap: int,
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[tuple[str, int, list[Candidate]]]:
        """Per entity of the user named in ``norms`` with at most ``cap`` mentions:
        its id, its degree and the memories (passing the filter) mentioning it."""
        ...
