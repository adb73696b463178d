"""Search: candidates from the graph, ranking from :mod:`hippograph.scoring`.

Order of work for one query: check the request, resolve the mode (AUTO looks
back when the query asks about the past) and any period the query names,
plan the candidate fetch from the request and the user's cached counts
(``search_pipeline/plan.py``), execute the plan (its stages concurrently,
keyword matching alone when the vector side finds nothing), rank, bring in
the best hits' neighbouring turns and rank again (the context stage), and
touch the returned memories (one best-effort write).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.errors import InvalidInput
from hippograph.models import Memory, MemoryFilter, MemUnit
from hippograph.modes import SearchMode, resolve_mode
from hippograph.ports import Embedder
from hippograph.querytime import TimeWindow, asks_when, parse_time_window
from hippograph.restated_hits import one_per_statement
from hippograph.scoring import (
    Breakdown,
    Candidate,
    ScoringStrategy,
    ScoringWeights,
    SearchMethod,
    rank,
    with_entities,
    with_ranks,
)
from hippograph.services.common_terms import CommonTerms
from hippograph.services.counts import CachedCounts
from hippograph.services.known_users import KnownUsers
from hippograph.services.memory_store import MemoryStore, MemUnitStore
from hippograph.services.refreshed import Refreshed
from hippograph.services.search_pipeline import context, speakers
from hippograph.services.search_pipeline.fetcher import CandidateFetcher, Fetched
from hippograph.services.search_pipeline.plan import SearchPlan, plan_search
from hippograph.services.search_store import EntityWalkStore, SearchStore
from hippograph.services.users import UserService
from hippograph.settings import LimitSettings, SearchSettings
from hippograph.text import query_terms
from hippograph.validation import require_count, require_filter, require_text

# How many messages of the latest sessions are read for their speakers.
SPEAKER_MESSAGES = 5000


class SearchTarget(StrEnum):
    """What a search returns."""

    MEMORY = "memory"
    MEMUNIT = "memunit"


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """One search, with every knob; defaults are the design's."""

    user_id: str
    query: str
    top_k: int = 10
    method: SearchMethod = SearchMethod.HYBRID
    strategy: ScoringStrategy = ScoringStrategy.WEIGHTED
    weights: ScoringWeights = field(default_factory=ScoringWeights)
    mode: SearchMode = SearchMode.AUTO
    filter: MemoryFilter = field(default_factory=MemoryFilter)
    candidates: int = 50
    radius: float | None = None
    touch: bool = True
    target: SearchTarget = SearchTarget.MEMORY


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A ranked memory (or MemUnit) and why it ranks there."""

    breakdown: Breakdown
    memory: Memory | None = None
    unit: MemUnit | None = None

    @property
    def id(self) -> str:
        """The hit's node id."""
        node = self.memory or self.unit
        assert node is not None
        return node.id


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Hits, best first, and how the search was run."""

    hits: tuple[SearchHit, ...]
    method: SearchMethod
    strategy: ScoringStrategy
    mode: SearchMode
    fallback: bool
    period: TimeWindow | None
    touched: bool


@dataclass(eq=False)
class SearchService:
    """Searches a user's memories or MemUnits."""

    _store: SearchStore
    _memory_store: MemoryStore
    _memunit_store: MemUnitStore
    _users: UserService
    _embedder: Embedder
    _clock: Clock
    _settings: SearchSettings
    _limits: LimitSettings
    _memory_counts: CachedCounts = field(init=False)
    _unit_counts: CachedCounts = field(init=False)
    _fetcher: CandidateFetcher = field(init=False)
    _speakers: Refreshed[str, list[str]] = field(init=False)
    _known_users: KnownUsers = field(init=False)
    # The entity graph's walk (HYBRID's third signal); None: no walk.
    _entities: EntityWalkStore | None = None

    def __post_init__(self) -> None:
        self._memory_counts = CachedCounts(
            self._memory_store.count, self._settings.count_cache_ttl_s
        )
        self._unit_counts = CachedCounts(self._store.count_units, self._settings.count_cache_ttl_s)
        common = CommonTerms(
            self._store.sample_search_text,
            share=self._settings.common_term_share,
            sample_size=self._settings.term_sample_size,
            ttl_s=self._settings.term_sample_ttl_s,
        )
        self._fetcher = CandidateFetcher(self._store, common, self._entities)
        self._speakers = Refreshed(self._recent_speakers, self._settings.count_cache_ttl_s)
        self._known_users = KnownUsers(self._users, self._settings.count_cache_ttl_s)

    def _check(self, request: SearchRequest) -> str:
        require_count(request.top_k, "topK", 1, self._limits.max_top_k)
        require_count(request.candidates, "candidates", 1, self._limits.max_candidates)
        if request.radius is not None and not (
            math.isfinite(request.radius) and -1.0 <= request.radius <= 1.0
        ):
            raise InvalidInput("radius must be a cosine similarity between -1 and 1", "radius")
        if request.radius is not None and request.method is SearchMethod.KEYWORD:
            raise InvalidInput(
                "radius bounds cosines, which a KEYWORD search has none of", "radius"
            )
        f = request.filter
        memory_only = (f.kinds, f.levels, f.categories, f.min_importance, f.domain)
        if request.target is SearchTarget.MEMUNIT and (
            any(v is not None for v in memory_only)
            or f.include_consolidated
            or f.include_superseded
            or f.include_deleted
        ):
            raise InvalidInput(
                "kinds, levels, categories, minImportance, domain and the include flags "
                "apply to memories, not MemUnits",
                "filter",
            )
        if request.target is SearchTarget.MEMUNIT and request.mode is SearchMode.REVIEW:
            # REVIEW asks for what has faded, which a MemUnit never has (NORMAL,
            # what has not faded, is every MemUnit).
            raise InvalidInput("REVIEW finds faded memories; MemUnits never fade", "mode")
        require_filter(f, "filter")
        return require_text(request.query, "query", self._limits.max_query_length)

    async def search(self, principal: Principal, request: SearchRequest) -> SearchResult:
        """Rank a visible user's memories (or MemUnits) for ``request.query``."""
        if request.weights.entity_weight is None:
            default = {"entity_weight": self._settings.entity_weight}
            request = replace(request, weights=request.weights.model_copy(update=default))
        query = self._check(request)
        user, read_now = await self._known_users.get(principal, request.user_id)
        request = replace(request, user_id=user.id, query=query)
        now = self._clock()
        mode = resolve_mode(request.mode, query, request.filter.levels)
        period = parse_time_window(query, now)
        when = asks_when(query)

        async def embed() -> list[float]:
            # Here, not before the fetch: the speakers lookup then overlaps the
            # keyword query, and a KEYWORD search, which embeds nothing, skips it.
            return await self._query_vector(query, user.id, user.name)

        plan = await self._plan(request, mode, now)
        fetched = await self._fetcher.fetch(plan, embed)
        candidates = with_entities(
            with_ranks(fetched.by_vector, fetched.by_keyword), fetched.by_entity
        )

        def ranking(among: list[Candidate]) -> list[tuple[Candidate, Breakdown]]:
            return rank(
                among,
                method=request.method,
                strategy=request.strategy,
                weights=request.weights,
                now=now,
                window=period,
                fallback=fetched.fallback,
                asks_when=when,
                entities=fetched.entities,
            )

        ranked = ranking(candidates)
        around = await self._around(plan, fetched, [c for c, _ in ranked])
        if around:
            ranked = ranking(candidates + around)
        ranked = one_per_statement(ranked)[: request.top_k]
        hits = await self._fetch(principal, request.target, ranked)
        if not hits and not read_now:  # a user deleted since is not found, as before
            await self._known_users.confirm(principal, user.id)
        touched = False
        if request.touch and request.target is SearchTarget.MEMORY and hits:
            touched = await self._store.touch([h.id for h in hits], now)
        return SearchResult(
            hits=hits,
            method=request.method,
            strategy=request.strategy,
            mode=mode,
            fallback=fetched.fallback,
            period=period,
            touched=touched,
        )

    async def _around(
        self, plan: SearchPlan, fetched: Fetched, ranked: list[Candidate]
    ) -> list[Candidate]:
        """The turns next to the best hits that are not candidates yet (the context stage)."""
        if not plan.context_seeds or fetched.vector is None or fetched.fallback:
            return []
        positions = context.plan(plan, ranked)
        return await self._fetcher.neighbours(plan, positions, fetched.vector, ranked)

    async def _query_vector(self, query: str, user_id: str, user_name: str) -> list[float]:
        """What the vector side searches with (``search_pipeline/speakers.py``)."""
        weight = self._settings.speaker_name_weight
        names: list[str] = []
        if speakers.needs_names(weight):
            names = [user_name, *await self._speakers.get(user_id)]
        return await speakers.fetch(self._embedder, speakers.plan(query, names, weight))

    async def _recent_speakers(self, user_id: str) -> list[str]:
        # A speaker new since the last refresh keeps their name in queries
        # for at most count_cache_ttl_s: their turns still match, by meaning
        # and by name, as before this stage existed.
        return await self._store.speakers(
            user_id, self._settings.speaker_sessions, SPEAKER_MESSAGES
        )

    async def _plan(self, request: SearchRequest, mode: SearchMode, now: datetime) -> SearchPlan:
        """How this request's candidates are fetched, from the user's cached counts."""
        units = request.target is SearchTarget.MEMUNIT
        counts = self._unit_counts if units else self._memory_counts
        return plan_search(
            user_id=request.user_id,
            units=units,
            method=request.method,
            mode=mode,
            terms=query_terms(request.query),
            memory_filter=request.filter,
            now=now,
            top_k=request.top_k,
            candidates=request.candidates,
            radius=request.radius,
            counts=await counts.of(request.user_id),
            index_scoped=not units and self._store.scoped_vector_index(),
            settings=self._settings,
            query=request.query,
            entity_weight=request.weights.entity_weight,
            context_weight=request.weights.context_weight,
        )

    async def _fetch(
        self,
        principal: Principal,
        target: SearchTarget,
        ranked: list[tuple[Candidate, Breakdown]],
    ) -> tuple[SearchHit, ...]:
        """The ranked hits, whole; one deleted in between drops out."""
        ids = [c.id for c, _ in ranked]
        if target is SearchTarget.MEMUNIT:
            units = await self._memunit_store.get_memunits(ids, principal.scope)
            return tuple(SearchHit(b, unit=units[c.id]) for c, b in ranked if c.id in units)
        memories = await self._memory_store.get_memories(ids)
        return tuple(SearchHit(b, memory=memories[c.id]) for c, b in ranked if c.id in memories)
