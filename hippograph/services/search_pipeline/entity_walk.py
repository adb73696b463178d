"""The entity walk: the memories that mention the entities the query names.

HYBRID's third signal (:mod:`hippograph.entity_signal` scores what the walk
reaches). It walks only for HYBRID searches of memories with an entity
weight: a KEYWORD or VECTOR search, or one of MemUnits, has no use for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hippograph.entities import entity_id, query_norms
from hippograph.entity_signal import Seed, entity_scores
from hippograph.scoring import Candidate, SearchMethod
from hippograph.services.search_store import EntityWalkStore
from hippograph.settings import SearchSettings

if TYPE_CHECKING:
    from hippograph.services.search_pipeline.plan import SearchPlan


@dataclass(frozen=True, slots=True)
class EntityPlan:
    """What the entity walk of one search asks."""

    norms: tuple[str, ...]  # every name the query may mean (hippograph.entities.query_norms)
    memories: int  # the user's memory count, for the seeds' weights
    cap: int  # entities mentioned by more memories are not walked
    keep: int  # memories only the walk found that join the candidates


def plan(
    query: str,
    *,
    method: SearchMethod,
    entity_weight: float | None,
    memories: int,
    keep: int,
    settings: SearchSettings,
) -> EntityPlan | None:
    """The walk for a HYBRID search of memories that weighs entities; None otherwise
    (a search of MemUnits never asks: the entities link memories)."""
    if method is not SearchMethod.HYBRID or not entity_weight:
        return None
    return EntityPlan(
        norms=tuple(query_norms(query)[: settings.entity_max_names]),
        memories=memories,
        cap=settings.entity_max_mentions,
        keep=keep,
    )


async def fetch(walker: EntityWalkStore | None, search: SearchPlan) -> dict[str, Candidate]:
    """The memories the query's entities reach, best entity score first."""
    walk = search.entities
    if walker is None or walk is None or not walk.norms:
        return {}
    found = await walker.walk(
        search.user_id, walk.norms, walk.cap, search.memory_filter, search.now
    )
    norms = {entity_id(search.user_id, n): n for n in walk.norms}
    seeds = [Seed(e, degree, hits, norms.get(e, "")) for e, degree, hits in found]
    return entity_scores(seeds, walk.memories)
