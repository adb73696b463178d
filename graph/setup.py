"""Schema and index setup: an explicit, idempotent, awaited step.

It runs at start-up and from ``hippograph init``; nothing is created in a
constructor or in a background task. Every statement is IF NOT EXISTS, so
running it twice changes nothing.
"""

from __future__ import annotations

from neo4j import AsyncManagedTransaction

from graph.cypher import cypher
from graph.dialect import IndexDialect
from graph.driver import GraphDriver, fetch
from hippograph.errors import ConfigError

CONSTRAINTS = [
    cypher(
        "setup.USER_ID",
        "CREATE CONSTRAINT user_id IF NOT EXISTS FOR (n:User) REQUIRE n.id IS UNIQUE",
    ),
    cypher(
        "setup.SESSION_ID",
        "CREATE CONSTRAINT session_id IF NOT EXISTS FOR (n:Session) REQUIRE n.id IS UNIQUE",
    ),
    cypher(
        "setup.MESSAGE_ID",
        "CREATE CONSTRAINT message_id IF NOT EXISTS FOR (n:Message) REQUIRE n.id IS UNIQUE",
    ),
    cypher(
        "setup.MEMUNIT_ID",
        "CREATE CONSTRAINT memunit_id IF NOT EXISTS FOR (n:MemUnit) REQUIRE n.id IS UNIQUE",
    ),
    cypher(
        "setup.MEMORY_ID",
        "CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (n:Memory) REQUIRE n.id IS UNIQUE",
    ),
    cypher(
        "setup.APIKEY_ID",
        "CREATE CONSTRAINT apikey_id IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.id IS UNIQUE",
    ),
    cypher(
        "setup.APIKEY_HASH",
        "CREATE CONSTRAINT apikey_hash IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.key_hash IS UNIQUE",
    ),
    cypher(
        "setup.JOB_ID",
        "CREATE CONSTRAINT job_id IF NOT EXISTS FOR (n:Job) REQUIRE n.id IS UNIQUE",
    ),
    cypher(
        "setup.ENTITY_ID",
        "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE",
    ),
    cypher(
        "setup.META_ID",
        "CREATE CONSTRAINT meta_id IF NOT EXISTS FOR (n:Meta) REQUIRE n.id IS UNIQUE",
    ),
]

PROPERTY_INDEXES = [
    cypher(
        "setup.MEMORY_USER",
        "CREATE INDEX memory_user IF NOT EXISTS FOR (n:Memory) ON (n.user_id)",
    ),
    # ArcadeDB does not look a composite index up by its first field alone:
    # without this one, every query by session (the context stage's turns)
    # scanned all memories (at 100k, minutes a search). Neo4j takes the
    # composite index below where both fields are given.
    cypher(
        "setup.MEMORY_SESSION",
        "CREATE INDEX memory_session IF NOT EXISTS FOR (n:Memory) ON (n.session_id)",
    ),
    # search's context stage finds the turns next to a hit by session and seq:
    # on both, the index hands it the one turn (on the session alone, Neo4j
    # 5.26 read every turn of the session and filtered them by seq)
    cypher(
        "setup.MEMORY_SESSION_SEQ",
        "CREATE INDEX memory_session_seq IF NOT EXISTS FOR (n:Memory) ON (n.session_id, n.seq)",
    ),
    cypher(
        "setup.MEMORY_CREATED",
        "CREATE INDEX memory_created IF NOT EXISTS FOR (n:Memory) ON (n.created_at)",
    ),
    cypher(
        "setup.SESSION_USER",
        "CREATE INDEX session_user IF NOT EXISTS FOR (n:Session) ON (n.user_id)",
    ),
    cypher(
        "setup.MESSAGE_SESSION",
        "CREATE INDEX message_session IF NOT EXISTS FOR (n:Message) ON (n.session_id)",
    ),
    cypher(
        "setup.MEMUNIT_SESSION",
        "CREATE INDEX memunit_session IF NOT EXISTS FOR (n:MemUnit) ON (n.session_id)",
    ),
    cypher(
        "setup.ENTITY_USER",
        "CREATE INDEX entity_user IF NOT EXISTS FOR (n:Entity) ON (n.user_id)",
    ),
    cypher(
        "setup.JOB_STATUS",
        "CREATE INDEX job_status IF NOT EXISTS FOR (n:Job) ON (n.status)",
    ),
]

READ_EMBEDDING_META = cypher(
    "setup.READ_EMBEDDING_META",
    "MATCH (m:Meta {id: 'embedding'}) RETURN m.model AS model, m.dimensions AS dimensions",
)
WRITE_EMBEDDING_META = cypher(
    "setup.WRITE_EMBEDDING_META",
    "MERGE (m:Meta {id: 'embedding'}) "
    "ON CREATE SET m.model = $model, m.dimensions = $dimensions "
    "RETURN m.model AS model, m.dimensions AS dimensions",
)


async def ensure_schema(
    graph: GraphDriver, dialect: IndexDialect, *, model: str, dimensions: int
) -> None:
    """Create constraints and indexes; refuse a graph built with another embedding size.

    Vectors of two sizes cannot share an index, so a model change with a new
    dimension count fails here, naming both, instead of failing every search.
    """
    for statement in CONSTRAINTS + PROPERTY_INDEXES:
        await graph.run_schema(statement)

    async def record(tx: AsyncManagedTransaction) -> tuple[str, int]:
        rows = await fetch(tx, WRITE_EMBEDDING_META, {"model": model, "dimensions": dimensions})
        return str(rows[0]["model"]), int(rows[0]["dimensions"])

    stored_model, stored_dimensions = await graph.write(record, merge_only=True)
    if stored_dimensions != dimensions:
        raise ConfigError(
            f"this graph holds {stored_dimensions}-dimension embeddings from {stored_model!r}, "
            f"but HIPPOGRAPH_EMBEDDING__MODEL={model!r} makes {dimensions}: "
            "use the original model or a fresh database"
        )
    await dialect.ensure_search_indexes(graph, dimensions)


async def rebuild_vector_indexes(graph: GraphDriver, dialect: IndexDialect) -> int:
    """Drop and rebuild both vector indexes with the current settings; their dimensions.

    For an index made with older settings (a changed efSearch, or ArcadeDB's
    flat graph before the hierarchical one): ``CREATE ... IF NOT EXISTS``
    keeps an existing index as it is, so only this changes it.
    """

    async def read(tx: AsyncManagedTransaction) -> int | None:
        rows = await fetch(tx, READ_EMBEDDING_META)
        return int(rows[0]["dimensions"]) if rows else None

    dimensions = await graph.read(read)
    if dimensions is None:
        raise ConfigError("this graph was never set up: run `hippograph init` first")
    await dialect.rebuild_vector_indexes(graph, dimensions)
    return dimensions
