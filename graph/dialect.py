"""The one place the two servers differ: how search indexes are made and named.

Constraints and property indexes are the same Cypher on both servers and live
in :mod:`graph.setup`. Vector and full-text indexes are not: Neo4j makes them
with ``CREATE VECTOR INDEX`` / ``CREATE FULLTEXT INDEX``; ArcadeDB with its SQL
over its HTTP API, after which they are called ``Type[property,...]``. Both
servers then answer ``db.index.vector.queryNodes`` and
``db.index.fulltext.queryNodes``, so queries take the index name as a parameter.

Neo4j 2026.01 and later also filter inside the vector index: the memory
index is made with ``WITH [n.user_id]`` and searched with Cypher 25's
``SEARCH`` clause scoped to the user (:attr:`IndexDialect.scopes_memory_vectors`),
where older servers rank every user's memories and the caller oversamples.

Both full-text indexes cover two properties: ``search_text`` (tokens made by
:mod:`hippograph.text`) and ``user_key`` (one token per owning user), and use a
whitespace analyzer, so the tokens are ours on both servers and a keyword query
is scoped to its user inside the index (``user_key:<key>^0 AND (...)``) rather
than by filtering a hit list that may be half the corpus.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import LiteralString, Protocol

import httpx

from graph.cypher import cypher
from graph.driver import GraphDriver
from graph.retry import Failure, RetryPolicy
from graph.tls import shared_context
from hippograph.errors import ConfigError, Unavailable

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IndexNames:
    """The names queries pass to ``db.index.*.queryNodes``."""

    memory_vector: str
    memunit_vector: str
    memory_text: str
    memunit_text: str


class IndexDialect(Protocol):
    """How one server makes and names the search indexes, and scores vectors."""

    name: str
    indexes: IndexNames
    # Whether the memory vector index keeps to one user inside the index (known
    # once ensure_search_indexes has run): then vector search asks it for the
    # user's nearest directly instead of oversampling everyone's.
    scopes_memory_vectors: bool

    def index_cosine(self, score: float) -> float:
        """The cosine similarity behind a ``db.index.vector.queryNodes`` score."""
        ...

    def exact_cosine(self, score: float) -> float:
        """The cosine similarity behind a ``vector.similarity.cosine`` value."""
        ...

    async def ensure_search_indexes(self, graph: GraphDriver, dimensions: int) -> None:
        """Create the vector and full-text indexes unless they exist."""
        ...

    async def drop_vector_indexes(self, graph: GraphDriver) -> None:
        """Drop both vector indexes if they exist (a re-embedding writes faster without)."""
        ...

    async def rebuild_vector_indexes(self, graph: GraphDriver, dimensions: int) -> None:
        """Drop both vector indexes and make them again with the current settings."""
        ...


def _check_dimensions(dimensions: int) -> int:
    if not isinstance(dimensions, int) or not 1 <= dimensions <= 4096:
        raise ConfigError(f"embedding dimensions must be an int in 1..4096, got {dimensions!r}")
    return dimensions


# Neo4j takes no parameters in index OPTIONS, so the vector index DDL is the one
# statement rendered from a template; the values put into it are the model's
# dimension count, an int checked above, and constants of this module, never
# anything from a request.
# Quantization is off: Neo4j (5.23 and later) quantizes by default, and its
# index then scored memories up to 0.008 away from their cosine and ranked the
# top ten differently from an exact scan (tests/graph/test_search.py, first
# run on a real Neo4j). Full vectors cost 1.5 KB a memory, 150 MB at 100k.
NEO4J_VECTOR_INDEX_TEMPLATE = (
    "{language}CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON n.embedding "
    "{filters}OPTIONS {{indexConfig: {{`vector.dimensions`: {dimensions}, "
    "`vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}}}}"
)
# The filter property of the memory index on servers with the SEARCH clause
# (Cypher 25). MemUnits belong to a list of users (user_ids), which an index
# filter cannot test, so their index stays unfiltered.
NEO4J_MEMORY_FILTERS = "WITH [n.user_id] "
NEO4J_CYPHER_25 = "CYPHER 25 "

NEO4J_MEMORY_TEXT_INDEX = cypher(
    "dialect.NEO4J_MEMORY_TEXT_INDEX",
    "CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (n:Memory) "
    "ON EACH [n.user_key, n.search_text] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}",
)
NEO4J_MEMUNIT_TEXT_INDEX = cypher(
    "dialect.NEO4J_MEMUNIT_TEXT_INDEX",
    "CREATE FULLTEXT INDEX memunit_text IF NOT EXISTS FOR (n:MemUnit) "
    "ON EACH [n.user_key, n.search_text] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}",
)


# Neo4j populates a new index in the background, and a query on it waits for
# the whole build (16 s for 30,000 vectors here): setup waits instead, so a
# process that has started can search at once. An hour covers millions of
# vectors; past it the start fails rather than serve a graph without indexes.
NEO4J_AWAIT_INDEXES = cypher("dialect.NEO4J_AWAIT_INDEXES", "CALL db.awaitIndexes(3600)")

NEO4J_DROP_MEMORY_VECTOR_INDEX = cypher(
    "dialect.NEO4J_DROP_MEMORY_VECTOR_INDEX", "DROP INDEX memory_embedding IF EXISTS"
)
NEO4J_DROP_MEMUNIT_VECTOR_INDEX = cypher(
    "dialect.NEO4J_DROP_MEMUNIT_VECTOR_INDEX", "DROP INDEX memunit_embedding IF EXISTS"
)


NEO4J_MEMORY_VECTOR_PROPERTIES = cypher(
    "dialect.NEO4J_MEMORY_VECTOR_PROPERTIES",
    "SHOW VECTOR INDEXES YIELD name, properties WHERE name = 'memory_embedding' RETURN properties",
)


def neo4j_vector_index_ddl(
    name: str, label: str, dimensions: int, *, user_filter: bool = False
) -> str:
    """The ``CREATE VECTOR INDEX`` statement for ``label`` (names are ours, not input).

    ``user_filter`` makes it a Cypher 25 index that the SEARCH clause can
    scope to one user (Neo4j 2026.01 and later).
    """
    return NEO4J_VECTOR_INDEX_TEMPLATE.format(
        language=NEO4J_CYPHER_25 if user_filter else "",
        name=name,
        label=label,
        filters=NEO4J_MEMORY_FILTERS if user_filter else "",
        dimensions=_check_dimensions(dimensions),
    )


def has_search_clause(agent: str) -> bool:
    """Whether a server (by its agent, ``Neo4j/2026.09.0``) has Cypher 25's SEARCH.

    Calendar versions began at 2025.01; the clause came with 2026.01.
    """
    version = agent.partition("/")[2]
    major = version.split(".", 1)[0]
    return major.isdigit() and int(major) >= 2026


class Neo4jDialect:
    """Neo4j 5.26 and 2026.x: native vector and full-text index DDL."""

    name = "neo4j"
    indexes = IndexNames(
        memory_vector="memory_embedding",
        memunit_vector="memunit_embedding",
        memory_text="memory_text",
        memunit_text="memunit_text",
    )

    def __init__(self) -> None:
        self.scopes_memory_vectors = False

    def index_cosine(self, score: float) -> float:
        """Neo4j reports ``(1 + cos) / 2``."""
        return 2.0 * score - 1.0

    def exact_cosine(self, score: float) -> float:
        """Neo4j's ``vector.similarity.cosine`` is also ``(1 + cos) / 2``."""
        return 2.0 * score - 1.0

    async def ensure_search_indexes(self, graph: GraphDriver, dimensions: int) -> None:
        """Create both vector indexes and both full-text indexes; return once every
        index (these and the constraints' made before) is online.

        On a server with the SEARCH clause the memory index is made filterable
        by user. An index that an older server made is kept as it is (IF NOT
        EXISTS), searched the old way, and named in a warning:
        ``hippograph reindex`` makes it again.
        """
        search_clause = has_search_clause(await graph.server_agent())
        for name, label in (("memory_embedding", "Memory"), ("memunit_embedding", "MemUnit")):
            ddl = neo4j_vector_index_ddl(
                name, label, dimensions, user_filter=search_clause and label == "Memory"
            )
            await graph.run_schema(ddl)  # type: ignore[arg-type,unused-ignore]  # see template
        await graph.run_schema(NEO4J_MEMORY_TEXT_INDEX)
        await graph.run_schema(NEO4J_MEMUNIT_TEXT_INDEX)
        await graph.run_schema(NEO4J_AWAIT_INDEXES)
        filterable = False
        if search_clause:
            rows = await graph.query(NEO4J_MEMORY_VECTOR_PROPERTIES)
            filterable = bool(rows) and "user_id" in (rows[0]["properties"] or [])
            if not filterable:
                log.warning(
                    "the memory vector index was made without the user as a filter; "
                    "searches oversample it as on Neo4j 5. `hippograph reindex` makes it "
                    "again, filterable (searches fail while it runs)"
                )
        self.scopes_memory_vectors = filterable

    async def drop_vector_indexes(self, graph: GraphDriver) -> None:
        """Drop both vector indexes if they exist."""
        await graph.run_schema(NEO4J_DROP_MEMORY_VECTOR_INDEX)
        await graph.run_schema(NEO4J_DROP_MEMUNIT_VECTOR_INDEX)

    async def rebuild_vector_indexes(self, graph: GraphDriver, dimensions: int) -> None:
        """Drop and recreate both vector indexes, waiting until they are built."""
        await self.drop_vector_indexes(graph)
        await self.ensure_search_indexes(graph, dimensions)


_WHITESPACE = "org.apache.lucene.analysis.core.WhitespaceAnalyzer"


def arcadedb_index_sql(dimensions: int, ef_search: int) -> list[str]:
    """ArcadeDB SQL that makes the search indexes; every statement is idempotent.

    The properties are declared first because ArcadeDB's indexes need typed
    properties; ``ARRAY_OF_FLOATS`` is also why vectors come back as float32.
    Never ``CREATE TEXT INDEX`` here: on ArcadeDB it makes a RANGE index, and a
    RANGE index on ``search_text`` blocks the FULL_TEXT one.

    The vector index is a hierarchical HNSW (``addHierarchy``), as Neo4j's
    is: ArcadeDB's default flat graph took 36 ms per query at 100,000
    vectors on two cores, the hierarchical one 19 ms, for recall@10 against
    an exact scan of 1.000 and 0.995 (docs/decisions/2026-11-23-onnx-runtime-vector-index.md).
    """
    vector_meta = json.dumps(
        {
            "dimensions": _check_dimensions(dimensions),
            "similarity": "COSINE",
            "efSearch": ef_search,
            "addHierarchy": True,
        }
    )
    text_meta = json.dumps({"analyzer": _WHITESPACE})
    statements: list[str] = []
    for label in ("Memory", "MemUnit"):
        statements += [
            f"CREATE VERTEX TYPE {label} IF NOT EXISTS",
            f"CREATE PROPERTY {label}.embedding IF NOT EXISTS ARRAY_OF_FLOATS",
            f"CREATE PROPERTY {label}.user_key IF NOT EXISTS STRING",
            f"CREATE PROPERTY {label}.search_text IF NOT EXISTS STRING",
            f"CREATE INDEX IF NOT EXISTS ON {label} (embedding) LSM_VECTOR METADATA {vector_meta}",
            f"CREATE INDEX IF NOT EXISTS ON {label} (user_key, search_text) FULL_TEXT "
            f"METADATA {text_meta}",
        ]
    return statements


class ArcadeDBDialect:
    """ArcadeDB: search indexes through its SQL over HTTP."""

    name = "arcadedb"
    scopes_memory_vectors = False
    indexes = IndexNames(
        memory_vector="Memory[embedding]",
        memunit_vector="MemUnit[embedding]",
        memory_text="Memory[user_key,search_text]",
        memunit_text="MemUnit[user_key,search_text]",
    )

    def __init__(
        self, http_url: str, user: str, password: str, database: str, ef_search: int = 400
    ) -> None:
        self._http_url = http_url.rstrip("/")
        self._auth = (user, password)
        self._database = database
        self._ef_search = ef_search

    def index_cosine(self, score: float) -> float:
        """ArcadeDB's index reports ``(1 + cos) / 2``, as Neo4j does."""
        return 2.0 * score - 1.0

    def exact_cosine(self, score: float) -> float:
        """ArcadeDB's ``vector.similarity.cosine`` is the raw cosine (Neo4j's is not)."""
        return score

    async def ensure_search_indexes(self, graph: GraphDriver, dimensions: int) -> None:
        """Run the index SQL against ArcadeDB's command endpoint."""
        await self._run_sql(graph.retry, arcadedb_index_sql(dimensions, self._ef_search))

    async def rebuild_vector_indexes(self, graph: GraphDriver, dimensions: int) -> None:
        """Drop both vector indexes and build them again from the stored vectors.

        Blocking until built (seconds per 10,000 vectors); searches made in
        the meantime fail, so run it with the service stopped.
        """
        await self.drop_vector_indexes(graph)
        await self._run_sql(graph.retry, arcadedb_index_sql(dimensions, self._ef_search))

    async def drop_vector_indexes(self, graph: GraphDriver) -> None:
        """Drop both vector indexes if they exist."""
        names = (self.indexes.memory_vector, self.indexes.memunit_vector)
        await self._run_sql(graph.retry, [f"DROP INDEX `{name}` IF EXISTS" for name in names])

    async def _run_sql(self, retry: RetryPolicy, statements: list[str]) -> None:
        url = f"{self._http_url}/api/v1/command/{self._database}"
        # Building a vector index over a large graph takes minutes.
        async with httpx.AsyncClient(
            auth=self._auth, timeout=1800.0, verify=shared_context()
        ) as client:
            # All in one request first: each request costs as much as a
            # statement whose index exists. If the server refuses the script,
            # the statements go again one by one, so that the refusals that
            # are no failure (below) can be told apart. Every statement is
            # idempotent: those the script got through are no-ops the second time.
            script = ";\n".join(statements)
            if (await _command(client, url, "sqlscript", script)).status_code == 200:
                return
            for statement in statements:
                response = await self._post(client, retry, url, statement)
                if response.status_code != 200:
                    if "LSM_VECTOR" in statement and "already exists" in response.text:
                        # IF NOT EXISTS still refuses an index whose METADATA
                        # differs: a changed setting must not stop the start.
                        log.warning(
                            "kept the existing vector index with its own settings; "
                            "`hippograph reindex` rebuilds it with the current ones "
                            "(HIPPOGRAPH_GRAPH__VECTOR_EF_SEARCH=%d, hierarchical)",
                            self._ef_search,
                        )
                        continue
                    detail = f"{response.status_code} {response.text[:300]}"
                    raise ConfigError(f"ArcadeDB refused {statement!r}: {detail}")

    async def _post(
        self, client: httpx.AsyncClient, retry: RetryPolicy, url: str, statement: str
    ) -> httpx.Response:
        """One statement; run again when it lost a race to another process's same statement.

        Two processes starting at once both create the same type or property,
        and ArcadeDB answers the slower one "already exists" in spite of IF
        NOT EXISTS; run again, the statement sees the winner's and is a no-op.
        """
        attempts = retry.attempts()
        while True:
            response = await _command(client, url, "sql", statement)
            lost_race = response.status_code != 200 and "already exists" in response.text
            if not lost_race or attempts.exhausted(Failure.RACE):
                return response
            await attempts.pause()


async def _command(
    client: httpx.AsyncClient, url: str, language: str, command: str
) -> httpx.Response:
    """One request to ArcadeDB's command endpoint; a server out of reach is Unavailable."""
    try:
        return await client.post(url, json={"language": language, "command": command})
    except httpx.HTTPError as exc:
        raise Unavailable(f"ArcadeDB's HTTP API cannot be reached: {exc}") from exc


SHOW_INDEXES: LiteralString = cypher(
    "dialect.SHOW_INDEXES",
    "SHOW INDEXES YIELD name, type, labelsOrTypes, properties "
    "RETURN name, type, labelsOrTypes, properties",
)
