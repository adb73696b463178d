"""Search in GraphQL: the knobs (input) and the explained hits (output)."""

from __future__ import annotations

from datetime import datetime

import strawberry

from hippograph import scoring
from hippograph.scoring_weights import scoring_weights
from hippograph.services import search as service
from schema.enums import MemoryLevel, ScoringStrategy, SearchMethod, SearchMode
from schema.mapping import from_domain
from schema.memory import Memory, memory_type
from schema.types import MemUnit, Node

_DEFAULT = scoring.ScoringWeights()


@strawberry.input(description="How hits are scored: the strategy and its weights.")
class ScoringInput:
    strategy: ScoringStrategy = scoring.ScoringStrategy.WEIGHTED
    alpha: float = strawberry.field(default=_DEFAULT.alpha, description="Weight of relevance.")
    beta: float = strawberry.field(default=_DEFAULT.beta, description="Weight of recency.")
    gamma: float = strawberry.field(default=_DEFAULT.gamma, description="Weight of importance.")
    decay_rate: float = strawberry.field(
        default=_DEFAULT.decay_rate, description="Recency per hour since last access."
    )
    vector_weight: float = strawberry.field(
        default=_DEFAULT.vector_weight, description="HYBRID: share of the semantic score."
    )
    rrf_k: int = strawberry.field(default=_DEFAULT.rrf_k, description="RRF's k.")
    context_weight: float = strawberry.field(
        default=_DEFAULT.context_weight,
        description="Relevance lent by a neighbouring message's memory.",
    )
    time_weight: float = strawberry.field(
        default=_DEFAULT.time_weight,
        description="Bonus for memories from a period the query names.",
    )
    entity_weight: float | None = strawberry.field(
        default=None,
        description="HYBRID: weight of the entity walk's score, for memories that mention "
        "the people, places and things the query names (0: no walk; null: the server's "
        "HIPPOGRAPH_SEARCH__ENTITY_WEIGHT, 0 unless set).",
    )
    summary_weight: float = strawberry.field(
        default=_DEFAULT.summary_weight,
        description="What a summary's relevance counts for (episodic memories and "
        "reflections): at equal relevance the statements it covers rank first.",
    )

    def weights(self) -> scoring.ScoringWeights:
        """The domain's weights (``InvalidInput`` naming the first one out of range)."""
        return scoring_weights(
            alpha=self.alpha,
            beta=self.beta,
            gamma=self.gamma,
            decay_rate=self.decay_rate,
            vector_weight=self.vector_weight,
            rrf_k=self.rrf_k,
            context_weight=self.context_weight,
            time_weight=self.time_weight,
            entity_weight=self.entity_weight,
            summary_weight=self.summary_weight,
        )


@strawberry.type(description="Every score a hit got, and where it came from.")
class ScoreBreakdown:
    semantic: float | None = strawberry.field(
        description="The cosine to the query placed between this query's best vector "
        "candidate (1) and its last (0): every model's cosines on one scale."
    )
    keyword: float | None = strawberry.field(description="BM25 over the query's best BM25.")
    relevance: float = strawberry.field(description="The method's relevance (fusion for HYBRID).")
    context: float = strawberry.field(description="Lent by a neighbouring turn's relevance.")
    time_match: float = strawberry.field(
        description="Bonus for a memory from the period the query names or whose text names a "
        "time in it, or, for a question asking when, whose text names a time."
    )
    entity: float = strawberry.field(
        description="entityWeight times the share of the query's entities it mentions."
    )
    fused: float = strawberry.field(
        description="(relevance + context + time + entity) scaled to [0, 1]."
    )
    recency: float
    importance: float
    final: float = strawberry.field(description="The score hits are ranked by.")
    vector_rank: int | None
    keyword_rank: int | None
    methods: list[SearchMethod] = strawberry.field(description="The methods that found it.")
    fallback: bool = strawberry.field(description="Found by the keyword fallback.")

    @classmethod
    def of(cls, b: scoring.Breakdown) -> ScoreBreakdown:
        """The GraphQL view of a breakdown."""
        return from_domain(cls, b)


@strawberry.type(description="A ranked memory (or MemUnit) and why it ranks there.")
class SearchHit:
    node: Node
    memory: Memory | None
    mem_unit: MemUnit | None
    level: MemoryLevel | None = strawberry.field(
        description="The memory's level: below FULL it is an older, vaguer impression."
    )
    score: float = strawberry.field(description="The final score (see breakdown).")
    similarity: float | None = strawberry.field(
        description="Cosine to the query, on the embedding model's own scale (what radius "
        "bounds); breakdown.semantic places it among this query's candidates."
    )
    breakdown: ScoreBreakdown


@strawberry.type(description="A period the query named, which favoured memories from it.")
class TimePeriod:
    label: str
    start: datetime | None
    end: datetime | None
    month: int | None = strawberry.field(description="A month named without a year.")


@strawberry.type(description="Search results, best first, and how the search ran.")
class SearchResult:
    hits: list[SearchHit]
    method: SearchMethod
    strategy: ScoringStrategy
    mode: SearchMode = strawberry.field(description="NORMAL or REVIEW (AUTO resolved).")
    fallback: bool = strawberry.field(description="The vector side found nothing.")
    period: TimePeriod | None
    touched: bool = strawberry.field(description="The returned memories were marked recalled.")

    @classmethod
    def of(cls, result: service.SearchResult) -> SearchResult:
        """The GraphQL view of a search result."""
        hits = []
        for hit in result.hits:
            memory = memory_type(hit.memory) if hit.memory else None
            unit = MemUnit.of(hit.unit) if hit.unit else None
            node: Node | None = memory or unit
            assert node is not None
            hits.append(
                SearchHit(
                    node=node,
                    memory=memory,
                    mem_unit=unit,
                    level=hit.memory.level if hit.memory else None,
                    score=hit.breakdown.final,
                    similarity=hit.breakdown.cosine,
                    breakdown=ScoreBreakdown.of(hit.breakdown),
                )
            )
        period = result.period
        return cls(
            hits=hits,
            method=result.method,
            strategy=result.strategy,
            mode=result.mode,
            fallback=result.fallback,
            period=TimePeriod(
                label=period.label, start=period.start, end=period.end, month=period.month
            )
            if period
            else None,
            touched=result.touched,
        )
