"""The one settings object, read once at start-up from ``HIPPOGRAPH_*`` env and ``.env``.

Nested sections use ``__`` in variable names: ``HIPPOGRAPH_GRAPH__SERVER=neo4j``,
``HIPPOGRAPH_API__PORT=9000``. Constructor arguments override the environment,
which is how tests build settings without touching ``os.environ``.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from hippograph.addresses import bolt_uri, jvm_size, redis_url

# Re-exported: the embedding settings are a part of Settings like any other.
from hippograph.embedding_settings import EmbeddingSettings as EmbeddingSettings
from hippograph.job_settings import JobSettings as JobSettings
from hippograph.models import MemoryKind
from hippograph.turns import CONTEXT_WEIGHT

GraphServer = Literal["arcadedb", "neo4j"]


class GraphSettings(BaseModel):
    """Where the graph lives.

    ``arcadedb`` with ``embedded`` true (the default) starts ArcadeDB inside the
    process, serving Bolt on a free loopback port, with its data under
    ``data_dir``. ``arcadedb`` with ``embedded`` false and ``neo4j`` connect to a
    running server at ``uri``.
    """

    server: GraphServer = "arcadedb"
    embedded: bool = True
    uri: Annotated[str | None, AfterValidator(bolt_uri)] = None
    http_url: str | None = Field(
        default=None,
        description="ArcadeDB's HTTP API (index DDL goes there); derived when embedded",
    )
    user: str | None = None
    password: SecretStr | None = None
    database: str = "hippograph"
    data_dir: Path = Path("data")
    heap: Annotated[str, AfterValidator(jvm_size)] = "2g"
    vector_ef_search: int = Field(
        default=400,
        ge=10,
        le=4000,
        description="ArcadeDB's HNSW search breadth (index metadata; applies to new indexes)",
    )
    connection_timeout_s: float = Field(default=10.0, gt=0)
    max_connection_pool_size: int = Field(default=50, ge=1)
    transaction_retry_s: float = Field(
        default=15.0, ge=0, description="how long deadlocks and other transient errors are retried"
    )
    unavailable_retry_s: float = Field(
        default=3.0, ge=0, description="how long a graph that cannot be reached is retried"
    )

    @model_validator(mode="after")
    def _check_server(self) -> GraphSettings:
        if self.server == "neo4j" and not self.uri:
            raise ValueError(
                "HIPPOGRAPH_GRAPH__URI is required when HIPPOGRAPH_GRAPH__SERVER=neo4j"
            )
        if self.server == "arcadedb" and not self.embedded and not (self.uri and self.http_url):
            raise ValueError(
                "HIPPOGRAPH_GRAPH__URI and HIPPOGRAPH_GRAPH__HTTP_URL are required "
                "when HIPPOGRAPH_GRAPH__EMBEDDED=false"
            )
        return self

    @property
    def effective_user(self) -> str:
        """The login: ``neo4j`` for Neo4j, ``root`` for ArcadeDB, unless set."""
        if self.user:
            return self.user
        return "neo4j" if self.server == "neo4j" else "root"


class SearchSettings(BaseModel):
    """How scoped vector search picks its path (docs/design.md §1, scoped vector search)."""

    exact_scan_max: int = Field(
        default=2000,
        ge=0,
        description="users with at most this many memories are searched exactly",
    )
    max_index_candidates: int = Field(default=4000, ge=10)
    count_cache_ttl_s: float = Field(default=30.0, ge=0)
    common_term_share: float = Field(
        default=0.2,
        gt=0,
        le=1,
        description="large users' query terms found in more of their memories are not looked up",
    )
    common_term_min_memories: int = Field(default=5000, ge=0)
    keyword_posting_budget: int = Field(
        default=20_000,
        ge=1,
        description="large users' keyword queries drop their most common terms while the "
        "postings they would walk (estimated) exceed this",
    )
    term_sample_size: int = Field(default=2000, ge=10)
    term_sample_ttl_s: float = Field(default=300.0, ge=0)
    context_seeds: int = Field(
        default=10,
        ge=0,
        le=100,
        description="the best hits whose neighbouring turns join the candidates (context "
        "stage); 0 keeps the context stage to turns already among the candidates",
    )
    speaker_name_weight: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="how much the names of the people of the user's recent conversations "
        "count in the vector side's query: it searches with the mean of the query without "
        "them and the query as asked, in these shares (0: names stripped, 1: kept; the "
        "keyword side keeps them; hippograph/query_names.py)",
    )
    speaker_sessions: int = Field(
        default=20, ge=1, description="the latest sessions whose speakers are those people"
    )
    entity_weight: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="the entity walk's weight in HYBRID memory search when a request names "
        "none (0: no walk). Off by default: on the LoCoMo and REALTALK dev subsets it did not "
        "raise recall (docs/retrieval.md)",
    )
    entity_max_mentions: int = Field(
        default=200,
        ge=1,
        description="entities with more mentions (by messages and memories) are not walked: "
        "their edges cost more than their weight is worth",
    )
    entity_max_names: int = Field(
        default=32, ge=1, description="names of a query looked up in the entity graph"
    )


class LimitSettings(BaseModel):
    """Caps on what one request may ask for."""

    # At least what a search asks for when it names no number (topK 10, candidates 50).
    max_top_k: int = Field(default=100, ge=10)
    max_candidates: int = Field(default=500, ge=50)
    max_page_size: int = Field(default=200, ge=1)
    max_content_length: int = Field(default=8000, ge=1)
    max_query_length: int = Field(default=2000, ge=1)
    max_messages_per_call: int = Field(default=500, ge=1)
    # /explore walks 4 steps down from a memory (server/static/explore.graphql).
    max_provenance_depth: int = Field(default=8, ge=4, le=10)
    max_query_depth: int = Field(default=12, ge=2)
    max_tokens: int = Field(default=2000, ge=50)
    max_aliases: int = Field(default=30, ge=1)


class ApiSettings(BaseModel):
    """The HTTP side: bind address, the admin key, and what one client may send."""

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    admin_key: SecretStr | None = None
    key_cache_ttl_s: float = Field(default=30.0, ge=0)
    rate_limit_per_s: float = Field(
        default=50.0, ge=0, description="requests per second per API key, sustained (0: no limit)"
    )
    rate_limit_burst: int = Field(
        default=100, ge=1, description="requests one key may make at once before the rate applies"
    )
    # 500 messages of 8,000 CJK characters (the content limits) are 12 MB of
    # UTF-8: the cap sits above what a valid request can need.
    max_body_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)
    ready_timeout_s: float = Field(
        default=2.0, gt=0, description="how long /readyz waits for each dependency"
    )
    max_websockets_per_key: int = Field(
        default=20, ge=1, description="websocket connections one key (or address) holds open"
    )
    max_subscriptions_per_key: int = Field(
        default=200, ge=1, description="subscriptions one key runs, over all its connections"
    )
    metrics_require_key: bool = Field(
        default=False, description="/metrics answers only an admin key (its counts span tenants)"
    )
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description="addresses or networks of reverse proxies whose X-Forwarded-For is "
        "believed (none by default: the connection's own address is the client)",
    )

    @field_validator("trusted_proxies")
    @classmethod
    def _check_proxies(cls, value: list[str]) -> list[str]:
        for proxy in value:
            try:
                ipaddress.ip_network(proxy.strip(), strict=False)
            except ValueError:
                raise ValueError(f"{proxy!r} is not an address or a network") from None
        return value


class RedisSettings(BaseModel):
    """The arq queue (server mode)."""

    url: Annotated[str, AfterValidator(redis_url)] = "redis://127.0.0.1:6379/0"
    timeout_s: float = Field(
        default=5.0, gt=0, description="longest wait for one Redis command (enqueue, ping)"
    )


class LLMSettings(BaseModel):
    """Which extractor turns MemUnits into memories.

    ``offline`` (the default) needs no model and no network. ``openai`` speaks
    the OpenAI chat-completions protocol, which OpenAI, DeepSeek, Qwen, Ollama
    and vLLM all serve: set ``base_url``, ``api_key`` and ``model``.
    """

    provider: Literal["offline", "openai"] = "offline"
    base_url: str = "https://api.openai.com/v1"
    api_key: SecretStr | None = None
    model: str = "gpt-4o-mini"
    language: Literal["en", "zh"] = Field(default="en", description="language of the prompts")
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    backoff_s: float = Field(default=1.0, ge=0)
    max_backoff_s: float = Field(default=30.0, ge=0)
    temperature: float = Field(default=0.0, ge=0, le=2)
    structured_output: Literal["auto", "json_schema", "json_object", "none"] = Field(
        default="auto",
        description="response_format sent: auto tries a JSON schema, then a JSON object, "
        "then none, stepping down when the server refuses one",
    )
    max_tokens: int = Field(
        default=2048, ge=64, le=65536, description="the most tokens one answer may take"
    )
    concurrency: int = Field(
        default=4,
        ge=1,
        le=256,
        description="requests in flight at once from this process; set it to the server's "
        "parallel slots (llama.cpp --parallel, vLLM's max_num_seqs)",
    )


class MemorizeSettings(BaseModel):
    """How conversations become memories (note 001 keeps facts scoring at least 0.7)."""

    keep_fact: float = Field(default=0.7, ge=0, le=1)
    keep_event: float = Field(default=0.05, ge=0, le=1)
    async_threshold: int = Field(
        default=200, ge=1, description="inputs with more messages become a job"
    )
    max_gap_minutes: float = Field(default=30.0, gt=0)
    topic_shift: float | None = Field(
        default=None,
        ge=-1,
        le=1,
        description="cosine of a turn to the turns just before, below which a new MemUnit "
        "starts (default: the embedding model's own, 0.2 for MiniLM)",
    )
    restatement: float | None = Field(
        default=None,
        ge=-1,
        le=1.01,
        description="cosine at which a turn is the speaker's earlier one said again",
    )
    min_unit: int = Field(default=3, ge=1)
    max_unit: int = Field(default=12, ge=1)
    reflect_after_write: bool = Field(
        default=True,
        description="queue a reflect run whenever memorize writes facts "
        "(off: only the scheduled sweep and explicit reflect requests)",
    )
    turn_context_weight: float = Field(
        default=CONTEXT_WEIGHT,
        ge=0,
        le=1,
        description="how much of the turn before goes into a turn's or event's vector "
        "(0: the turn alone); bench/experiments/context_weight.py measures it",
    )
    entities: bool = Field(
        default=True,
        description="link messages and memories to the entities they mention "
        "(people, places, things, dates) for search's entity walk",
    )


class ReflectionSettings(BaseModel):
    """When a user's facts are summarised into a reflection (note 001, docs/design.md §6)."""

    min_importance_sum: float = Field(default=4.0, gt=0)
    min_facts: int = Field(default=2, ge=2)
    cooldown_minutes: float = Field(default=60.0, ge=0)
    cluster_threshold: float | None = Field(
        default=None,
        ge=-1,
        le=1,
        description="cosine to a theme's centre from which a fact joins it "
        "(default: the embedding model's own, 0.45 for MiniLM)",
    )
    max_facts_per_reflection: int = Field(default=40, ge=2)
    max_pending: int = Field(default=20000, ge=2, description="facts read per run")
    sweep_page: int = Field(default=1000, ge=1, description="users read per page by the sweep")
    kinds: list[str] = Field(
        default_factory=lambda: ["semantic", "profile", "reflection"],
        min_length=1,
        description="memory kinds a reflection may cover",
    )
    sweep_interval_s: float = Field(
        default=900.0, ge=0, description="scheduled sweep for due users (0: off)"
    )

    @field_validator("kinds")
    @classmethod
    def _check_kinds(cls, value: list[str]) -> list[str]:
        # Compared with the stored kinds, which are lower case: SEMANTIC (as
        # GraphQL spells it) or a typo would make every run find nothing.
        known = {k.value for k in MemoryKind}
        kinds = [k.strip().lower() for k in value]
        unknown = sorted(set(kinds) - known)
        if unknown:
            raise ValueError(f"{unknown} are not memory kinds ({', '.join(sorted(known))})")
        return kinds


class ForgettingSettings(BaseModel):
    """How memories fade, fuzz and go (notes 000, 001, 002 and 004; docs/design.md §7)."""

    fuzz_curve: Literal["hyperbolic", "ebbinghaus"] = "hyperbolic"
    soft_delete_curve: Literal["ebbinghaus", "hyperbolic"] = "ebbinghaus"
    soft_delete_below: float = Field(default=0.1, ge=0, le=1)
    full_above: float = Field(default=0.7, gt=0, le=1)
    summary_above: float = Field(default=0.3, gt=0, le=1)
    tag_above: float = Field(default=0.1, gt=0, le=1)
    trace_above: float = Field(default=0.01, gt=0, le=1)
    ebbinghaus_base: float = Field(default=0.9, gt=0, lt=1)
    ebbinghaus_strength: float = Field(default=1.5, ge=1)
    hyperbolic_alpha: float = Field(default=0.01, gt=0)
    hyperbolic_strength: float = Field(default=1.5, ge=1)
    fact_speed: float = Field(default=1.0, ge=0, description="time runs this fast for facts")
    episode_speed: float = Field(default=4.0, ge=0, description="and this fast for episodes")
    episode_max_age_days: float = Field(
        default=14.0, ge=0, description="deleting policies drop older episodes (0: never)"
    )
    fact_importance_floor: float = Field(default=0.3, ge=0, le=1)
    promote_at: float = Field(
        default=0.95, ge=0, le=1.01, description="facts this important become core (above 1: never)"
    )
    batch_size: int = Field(default=1000, ge=1, le=10000)
    sweep_interval_s: float = Field(
        default=86400.0, ge=0, description="scheduled FUZZ pass over every user (0: off)"
    )

    @model_validator(mode="after")
    def _check_levels(self) -> ForgettingSettings:
        if not self.full_above > self.summary_above > self.tag_above > self.trace_above:
            raise ValueError(
                "HIPPOGRAPH_FORGETTING__*_ABOVE must fall strictly: full > summary > tag > trace"
            )
        return self


class Settings(BaseSettings):
    """Everything HippoGraph reads from its environment."""

    model_config = SettingsConfigDict(
        env_prefix="HIPPOGRAPH_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    graph: GraphSettings = GraphSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    search: SearchSettings = SearchSettings()
    limits: LimitSettings = LimitSettings()
    api: ApiSettings = ApiSettings()
    redis: RedisSettings = RedisSettings()
    llm: LLMSettings = LLMSettings()
    memorize: MemorizeSettings = MemorizeSettings()
    jobs: JobSettings = JobSettings()
    reflection: ReflectionSettings = ReflectionSettings()
    forgetting: ForgettingSettings = ForgettingSettings()
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["json", "text"] = Field(
        default="json", description="json: one object per line, with the request id"
    )
