"""Search's entity signal: one step of personalized PageRank from the query's entities.

The query's names (:func:`hippograph.entities.query_norms`) that the user's
graph holds are the seeds. Each seed ``e`` mentioned by ``deg(e)`` of the
user's ``N`` memories carries an inverse-document-frequency weight
``w(e) = ln(1 + N / deg(e))``: a speaker's name in half the memories counts
little, a place named in three counts a lot. A memory's entity score is the
share of the seeds' weight it is linked to,

    entity(m) = Σ_{e seed, m mentions e} w(e) / Σ_{e seed} w(e),

in [0, 1]: 1 when it mentions every entity the query names. Spreading each
seed's mass evenly over its memories (``w(e) / deg(e)``, PageRank's step)
would rank the same memories the same way for one seed, but for several it
lets a rare entity drown a memory that mentions all of them; the share keeps
"mentions more of what was asked" first.

Seeds mentioned by more than the walk's cap of memories are not read at all
(the graph skips them: their edges cost more than their weight is worth), so
they are not in the denominator either. A seed whose name lies inside another
seed's ("pottery" inside "pottery workshop") is the same mention read twice:
only the longer counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hippograph.scoring import Candidate


@dataclass(frozen=True, slots=True)
class Seed:
    """A query entity the user's graph holds: its id, its degree and its memories."""

    entity_id: str
    degree: int
    memories: Sequence[Candidate]
    norm: str = ""  # its normalised name, when known


def _inside(short: str, long: str) -> bool:
    """Whether the words of ``short`` are a run of the words of ``long`` (and not all of it)."""
    return short != long and f" {short} " in f" {long} "


def outermost(seeds: Sequence[Seed]) -> list[Seed]:
    """The seeds whose names lie inside no other seed's name."""
    return [s for s in seeds if not any(_inside(s.norm, o.norm) for o in seeds if s.norm)]


def seed_weight(degree: int, memories: int) -> float:
    """``ln(1 + N / deg)``: rarer entities weigh more."""
    return math.log1p(max(memories, degree, 1) / max(degree, 1))


def entity_scores(seeds: Sequence[Seed], memories: int) -> dict[str, Candidate]:
    """Every memory the seeds reach, with its entity score set, best first."""
    seeds = outermost(seeds)
    if not seeds:
        return {}
    weights = {s.entity_id: seed_weight(s.degree, memories) for s in seeds}
    total = sum(weights.values())
    scores: dict[str, float] = {}
    found: dict[str, Candidate] = {}
    for seed in seeds:
        for candidate in seed.memories:
            scores[candidate.id] = scores.get(candidate.id, 0.0) + weights[seed.entity_id]
            found.setdefault(candidate.id, candidate)
    ordered = sorted(scores, key=lambda mid: (-scores[mid], mid))
    return {mid: replace(found[mid], entity_score=scores[mid] / total) for mid in ordered}
