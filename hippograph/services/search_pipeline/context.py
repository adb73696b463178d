"""The context stage: the turns beside the best hits, after a first ranking.

The answer to a question is often the turn after the one that matched it,
and that turn may share no word and little meaning with the query. Brought
in here, it still has to earn its place: it ranks on its own cosine plus the
context bonus its neighbour gives it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hippograph.scoring import Candidate
from hippograph.services.search_store import SearchStore

if TYPE_CHECKING:
    from hippograph.services.search_pipeline.plan import SearchPlan

Position = tuple[str, int]  # a turn's session id and seq


def plan(search: SearchPlan, ranked: Sequence[Candidate]) -> list[Position]:
    """The positions next to the best ``search.context_seeds`` of ``ranked`` (best first)
    that no candidate holds yet."""
    known = {(c.session_id, c.seq) for c in ranked}
    positions: dict[Position, None] = {}
    for c in ranked[: search.context_seeds]:
        if c.session_id is None or c.seq is None:
            continue
        for step in (-1, 1):
            position = (c.session_id, c.seq + step)
            if position not in known and position[1] >= 0:
                positions[position] = None
    return list(positions)


async def fetch(
    store: SearchStore,
    search: SearchPlan,
    positions: Sequence[Position],
    vector: Sequence[float],
    ranked: Sequence[Candidate],
) -> list[Candidate]:
    """The memories at ``positions`` that pass the plan's filter and radius, with their
    cosine, less any already ranked."""
    if not positions:
        return []
    found = await store.neighbours(
        search.user_id, positions, vector, search.memory_filter, search.now
    )
    ids = {c.id for c in ranked}
    # a radius asked for bounds every memory returned, however it came
    radius = search.vector.radius
    return [
        c for c in found if c.id not in ids and (radius is None or (c.similarity or 0.0) >= radius)
    ]
