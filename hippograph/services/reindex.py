"""Re-embedding every vector the graph holds with the running model (``hippograph reindex``).

Memories first, then MemUnits, a page at a time: read the page, embed the
distinct texts its vectors are made of (:mod:`hippograph.reembedding`) in
one call, write the page's vectors in one transaction marked with the run's
id. A run killed at any point and started again with the same id reads
only what is left, so no node is written twice and none is missed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from hippograph.ports import Embedder
from hippograph.reembedding import (
    Recipe,
    StoredMemory,
    Turn,
    memory_vector,
    recipe,
    texts_needed,
    unit_vector,
)

# Told how many nodes of which label ("memories", "units") a page just wrote.
Progress = Callable[[str, int], None]


class ReindexStore(Protocol):
    """What re-embedding needs from the graph (``graph/reindex.py``)."""

    async def left(self, run: str) -> tuple[int, int]: ...

    async def memory_page(self, run: str, after: str, limit: int) -> list[StoredMemory]: ...

    async def unit_page(self, run: str, after: str, limit: int) -> list[tuple[str, str]]: ...

    async def memory_messages(self, ids: Sequence[str]) -> dict[str, list[Turn]]: ...

    async def unit_messages(self, ids: Sequence[str]) -> dict[str, list[Turn]]: ...

    async def previous(self, turns: Sequence[Turn]) -> dict[tuple[str, int], Turn]: ...

    async def write_memories(self, run: str, vectors: dict[str, list[float]]) -> int: ...

    async def write_units(self, run: str, vectors: dict[str, list[float]]) -> int: ...


@dataclass(frozen=True, slots=True)
class Reembedded:
    """What one run wrote."""

    memories: int
    units: int


@dataclass
class ReindexService:
    """Re-embeds every Memory and MemUnit vector with ``embedder``."""

    store: ReindexStore
    embedder: Embedder
    # memorize's HIPPOGRAPH_MEMORIZE__TURN_CONTEXT_WEIGHT: how events blend the turn before
    context_weight: float = 0.0
    page: int = 256

    async def left(self, run: str) -> tuple[int, int]:
        """Memories and MemUnits run ``run`` has still to write."""
        return await self.store.left(run)

    async def run(self, run: str, progress: Progress | None = None) -> Reembedded:
        """Write every vector run ``run`` has not written yet; what this call wrote."""
        memories = await self._memories(run, progress)
        units = await self._units(run, progress)
        return Reembedded(memories, units)

    async def _memories(self, run: str, progress: Progress | None) -> int:
        written, after = 0, ""
        while page := await self.store.memory_page(run, after, self.page):
            after = page[-1].id
            turns = await self.store.memory_messages(
                [m.id for m in page if recipe(m) is Recipe.TURN]
            )
            previous = await self._previous([t[0] for t in turns.values() if t])
            texts = texts_needed(page, turns, previous)
            vectors = dict(zip(texts, await self.embedder.embed(texts), strict=True))
            made = {
                m.id: memory_vector(m, turns.get(m.id, []), previous, vectors, self.context_weight)
                for m in page
            }
            done = await self.store.write_memories(run, made)
            written += done
            if progress is not None:
                progress("memories", done)
        return written

    async def _units(self, run: str, progress: Progress | None) -> int:
        written, after = 0, ""
        while page := await self.store.unit_page(run, after, self.page):
            after = page[-1][0]
            turns = await self.store.unit_messages([unit for unit, _ in page])
            # a unit whose messages were all deleted since: its summary stands for them
            bare = {unit: summary for unit, summary in page if not turns.get(unit)}
            texts = [t.text for unit in turns.values() for t in unit] + list(bare.values())
            texts = list(dict.fromkeys(texts))
            vectors = dict(zip(texts, await self.embedder.embed(texts), strict=True))
            made = {
                unit: list(vectors[bare[unit]])
                if unit in bare
                else unit_vector(turns[unit], vectors)
                for unit, _ in page
            }
            done = await self.store.write_units(run, made)
            written += done
            if progress is not None:
                progress("units", done)
        return written

    async def _previous(self, turns: Sequence[Turn]) -> dict[tuple[str, int], Turn]:
        # Only a blend reads the turn before; without one it would be read for nothing.
        if self.context_weight <= 0:
            return {}
        return await self.store.previous(turns)
