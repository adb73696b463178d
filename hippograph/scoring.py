"""Ranking search candidates: every score a hit gets, and why.

The graph only produces candidates (a cosine similarity from the vector side,
a BM25 score from the keyword side, their ranks). Everything else is here, in
stages, each visible in the hit's breakdown:

1. relevance, by method: VECTOR the cosine placed between this query's best
   and last vector candidates (:class:`CosineRange`); KEYWORD BM25
   divided by the best BM25 of the query; HYBRID a convex combination
   ``w·semantic + (1-w)·keyword`` (``w`` = ``vector_weight``), or, for the RRF
   strategy, reciprocal-rank fusion ``Σ 1/(k + rank)`` scaled to [0, 1].
   When the vector side found nothing, every keyword hit gets relevance 0.5
   (note 000's keyword fallback).
   Summaries (episodes, reflections) count ``summary_weight`` of their
   relevance: one stands for many messages, and the statement that answers
   should come before the summary that contains it.
2. context: a memory next to a relevant one in the same conversation (its
   source message one step away) gains ``context_weight`` times that
   neighbour's relevance: questions are answered by the turn after them.
3. time: when the query names a period, memories from that period, or whose
   text names a time in it ("yesterday" said the day after), gain
   ``time_weight``; when it asks "when", memories whose text names a time do.
3b. entity: when the query names entities the user's graph holds, a memory
   gains ``entity_weight`` times its entity score, the share of those
   entities' weight it mentions (:mod:`hippograph.entity_signal`).
4. fused = (relevance + context + time + entity) / (1 + context_weight
   [+ time_weight] [+ entity_weight]), back in [0, 1].
5. final, by strategy: WEIGHTED (note 001) ``α·fused + β·decay^hours + γ·importance``
   with hours since last access; MULTIPLICATIVE (note 000)
   ``(0.8·fused + 0.2/(1 + age_days))·(0.8 + 0.4·importance)``; RRF as WEIGHTED
   over the rank-fused relevance.

Ties are broken by fused score, then keyword score, then id, so the order is
the same on every run and every server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from hippograph.querytime import TimeWindow

# The knobs every stage below reads; re-exported: callers know them as scoring's.
from hippograph.scoring_weights import ScoringWeights as ScoringWeights

# Memories that summarise others: an episode its MemUnit, a reflection its facts.
SUMMARY_KINDS = frozenset({"episodic", "reflection"})


class SearchMethod(StrEnum):
    """Where candidates come from."""

    KEYWORD = "keyword"
    VECTOR = "vector"
    HYBRID = "hybrid"


class ScoringStrategy(StrEnum):
    """How relevance, recency and importance combine."""

    WEIGHTED = "weighted"
    MULTIPLICATIVE = "multiplicative"
    RRF = "rrf"


@dataclass(frozen=True, slots=True)
class Candidate:
    """What the graph said about one memory (or MemUnit) for this query."""

    id: str
    importance: float
    created_at: datetime
    last_accessed_at: datetime
    similarity: float | None = None  # cosine to the query
    keyword_score: float | None = None  # raw BM25
    vector_rank: int | None = None  # 1-based
    keyword_rank: int | None = None
    session_id: str | None = None
    seq: int | None = None  # position of its source message in the session
    about: tuple[datetime, datetime] | None = None  # the period its text names
    entity_score: float | None = None  # share of the query's entities it mentions
    kind: str | None = None  # the memory's kind (None for a MemUnit)


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Why a hit ranks where it does."""

    semantic: float | None
    keyword: float | None
    relevance: float
    context: float
    time_match: float
    fused: float
    recency: float
    importance: float
    final: float
    vector_rank: int | None
    keyword_rank: int | None
    methods: tuple[SearchMethod, ...]
    fallback: bool
    entity: float = 0.0
    cosine: float | None = None  # the raw cosine to the query, on the model's own scale


def clip01(value: float) -> float:
    """``value`` limited to [0, 1]."""
    return min(1.0, max(0.0, value))


def weighted_score(
    fused: float, hours_since_access: float, importance: float, w: ScoringWeights
) -> tuple[float, float]:
    """Note 001: ``α·fused + β·decay^hours + γ·importance``; returns (final, recency)."""
    recency = w.decay_rate ** max(0.0, hours_since_access)
    return w.alpha * fused + w.beta * recency + w.gamma * importance, recency


def multiplicative_score(fused: float, age_days: float, importance: float) -> tuple[float, float]:
    """Note 000: ``(0.8·fused + 0.2/(1 + age_days))·(0.8 + 0.4·importance)``; (final, recency)."""
    recency = 1.0 / (1.0 + max(0.0, age_days))
    return (0.8 * fused + 0.2 * recency) * (0.8 + 0.4 * importance), recency


def rrf_relevance(ranks: Sequence[int | None], k: int, methods: int) -> float:
    """Reciprocal-rank fusion scaled so that rank 1 in every method gives 1."""
    total = sum(1.0 / (k + rank) for rank in ranks if rank is not None)
    return total / (methods / (k + 1))


@dataclass(frozen=True, slots=True)
class CosineRange:
    """The cosines of this query's vector candidates: the best and the last kept."""

    top: float
    floor: float

    def semantic(self, cosine: float) -> float:
        """``cosine`` placed in this query's range: 1 at the best candidate, 0 at the last.

        A model's cosines live on its own scale (MiniLM's candidates for a
        question span about 0.45 to 0.65, e5's 0.80 to 0.87): read raw, the
        narrow ones would be swamped by recency and importance. Placed
        between this query's best and last vector candidate, every model's
        semantic score spans [0, 1], as the keyword score (BM25 over the
        query's best) does.
        """
        if self.top - self.floor <= 1e-9:
            return 1.0 if cosine >= self.floor else 0.0
        return clip01((cosine - self.floor) / (self.top - self.floor))


def cosine_range(candidates: Sequence[Candidate]) -> CosineRange | None:
    """The range of the vector side's cosines (every cosine known if it ranked none)."""
    ranked = [
        c.similarity for c in candidates if c.vector_rank is not None and c.similarity is not None
    ]
    known = ranked or [c.similarity for c in candidates if c.similarity is not None]
    if not known:
        return None
    return CosineRange(max(known), min(known))


def _relevance(
    c: Candidate,
    method: SearchMethod,
    strategy: ScoringStrategy,
    w: ScoringWeights,
    keyword_norm: float | None,
    fallback: bool,
    cosines: CosineRange | None,
) -> float:
    if fallback:
        return 0.5
    if strategy is ScoringStrategy.RRF:
        ranks = {
            SearchMethod.VECTOR: [c.vector_rank],
            SearchMethod.KEYWORD: [c.keyword_rank],
            SearchMethod.HYBRID: [c.vector_rank, c.keyword_rank],
        }[method]
        return rrf_relevance(ranks, w.rrf_k, len(ranks))
    semantic = _semantic(c, cosines) or 0.0
    keyword = keyword_norm or 0.0
    if method is SearchMethod.VECTOR:
        return semantic
    if method is SearchMethod.KEYWORD:
        return keyword
    return w.vector_weight * semantic + (1.0 - w.vector_weight) * keyword


def _semantic(c: Candidate, cosines: CosineRange | None) -> float | None:
    if c.similarity is None or cosines is None:
        return None
    return cosines.semantic(c.similarity)


def _in_time(c: Candidate, window: TimeWindow | None, asks_when: bool) -> bool:
    """Whether ``c`` is from the period asked for, or names a time when one is asked for."""
    if window is not None:
        return window.contains(c.created_at) or (c.about is not None and window.overlaps(*c.about))
    return asks_when and c.about is not None


def rank(
    candidates: Sequence[Candidate],
    *,
    method: SearchMethod,
    strategy: ScoringStrategy,
    weights: ScoringWeights,
    now: datetime,
    window: TimeWindow | None = None,
    fallback: bool = False,
    asks_when: bool = False,
    entities: bool = False,
) -> list[tuple[Candidate, Breakdown]]:
    """Score and order ``candidates``; see the module docstring for the stages.

    ``window``: the period the query names; ``asks_when``: whether it asks for
    a time (``hippograph.querytime.asks_when``). ``entities`` says the query
    named entities the user's graph holds, so the entity stage counts.
    """
    best_keyword = max((c.keyword_score or 0.0 for c in candidates), default=0.0)
    keyword_norm = {
        c.id: (c.keyword_score / best_keyword)
        if c.keyword_score is not None and best_keyword > 0
        else None
        for c in candidates
    }
    cosines = cosine_range(candidates)
    relevance = {
        c.id: _relevance(c, method, strategy, weights, keyword_norm[c.id], fallback, cosines)
        * (weights.summary_weight if c.kind in SUMMARY_KINDS else 1.0)
        for c in candidates
    }
    # Several memories can stand at one position (an event and the facts of
    # one message): the position is as relevant as the best of them.
    by_position: dict[tuple[str, int], float] = {}
    for c in candidates:
        if c.session_id and c.seq is not None:
            key = (c.session_id, c.seq)
            by_position[key] = max(by_position.get(key, 0.0), relevance[c.id])
    timed = window is not None or asks_when
    divisor = 1.0 + weights.context_weight + (weights.time_weight if timed else 0.0)
    entity_weight = weights.entity_weight or 0.0
    divisor += entity_weight if entities else 0.0
    ranked: list[tuple[Candidate, Breakdown]] = []
    for c in candidates:
        neighbours = [
            by_position[key]
            for key in ((c.session_id or "", (c.seq or 0) + step) for step in (-1, 1))
            if c.seq is not None and key in by_position
        ]
        context = weights.context_weight * max(neighbours, default=0.0)
        time_match = weights.time_weight if _in_time(c, window, asks_when) else 0.0
        entity = entity_weight * (c.entity_score or 0.0) if entities else 0.0
        fused = (relevance[c.id] + context + time_match + entity) / divisor
        if strategy is ScoringStrategy.MULTIPLICATIVE:
            age_days = (now - c.created_at).total_seconds() / 86400
            final, recency = multiplicative_score(fused, age_days, c.importance)
        else:
            hours = (now - c.last_accessed_at).total_seconds() / 3600
            final, recency = weighted_score(fused, hours, c.importance, weights)
        methods = tuple(
            m
            for m, rank_ in (
                (SearchMethod.VECTOR, c.vector_rank),
                (SearchMethod.KEYWORD, c.keyword_rank),
            )
            if rank_ is not None
        )
        ranked.append(
            (
                c,
                Breakdown(
                    semantic=_semantic(c, cosines),
                    keyword=keyword_norm[c.id],
                    relevance=relevance[c.id],
                    context=context,
                    time_match=time_match,
                    fused=fused,
                    recency=recency,
                    importance=c.importance,
                    final=final,
                    vector_rank=c.vector_rank,
                    keyword_rank=c.keyword_rank,
                    methods=methods,
                    fallback=fallback,
                    entity=entity,
                    cosine=c.similarity,
                ),
            )
        )
    ranked.sort(
        key=lambda item: (-item[1].final, -item[1].fused, -(item[1].keyword or 0.0), item[0].id)
    )
    return ranked


def with_ranks(vector: Sequence[Candidate], keyword: Sequence[Candidate]) -> list[Candidate]:
    """Merge the two sides' candidates by id, numbering each side's ranks from 1.

    A keyword hit brings its cosine along (computed by the graph), so only a
    vector-only hit lacks a keyword score: it did not match the words.
    """
    merged: dict[str, Candidate] = {}
    for position, c in enumerate(vector, start=1):
        merged[c.id] = replace(c, vector_rank=position, keyword_score=None, keyword_rank=None)
    for position, c in enumerate(keyword, start=1):
        known = merged.get(c.id)
        if known is None:
            merged[c.id] = replace(c, keyword_rank=position, vector_rank=None)
        else:
            merged[c.id] = replace(known, keyword_score=c.keyword_score, keyword_rank=position)
    return list(merged.values())


def with_entities(
    candidates: Sequence[Candidate], by_entity: Mapping[str, Candidate]
) -> list[Candidate]:
    """``candidates`` with their entity scores, then the walk's memories not among them.

    A memory only the walk found has no rank on either side; it brings its
    cosine along when the fetcher got one for it.
    """
    merged = [
        replace(c, entity_score=by_entity[c.id].entity_score) if c.id in by_entity else c
        for c in candidates
    ]
    known = {c.id for c in candidates}
    merged.extend(
        replace(c, vector_rank=None, keyword_rank=None, keyword_score=None)
        for mid, c in by_entity.items()
        if mid not in known
    )
    return merged
