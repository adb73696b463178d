"""Schema and index setup: an explicit, idempotent, awaited step.

It runs at start-up and from ``hippograph init``; nothing is created in a
constructor or in a background task. Every statement is IF NOT EXISTS, so
running it twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Collection

from graph import embedding_meta
from graph.cypher import cypher
from graph.dialect import IndexDialect
from graph.driver import GraphDriver
from graph.embedding_meta import StoredVectors, VectorModel
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


async def ensure_schema(
    graph: GraphDriver,
    dialect: IndexDialect,
    *,
    running: VectorModel,
    known_as: Collection[str] = (),
) -> StoredVectors:
    """Create constraints and indexes; refuse a graph whose vectors another model made.

    The refusal (:func:`graph.embedding_meta.refusal`) comes before the
    vector indexes are made, so a model change fails here, naming the
    command that re-embeds, instead of failing or misranking every search.
    """
    for statement in CONSTRAINTS + PROPERTY_INDEXES:
        await graph.run_schema(statement)
    stored = await embedding_meta.record(graph, running)
    why = embedding_meta.refusal(stored, running, known_as)
    if why is not None:
        raise ConfigError(why)
    await dialect.ensure_search_indexes(graph, running.dimensions)
    return stored


async def rebuild_vector_indexes(graph: GraphDriver, dialect: IndexDialect) -> int:
    """Drop and rebuild both vector indexes with the current settings; their dimensions.

    For an index made with older settings (a changed efSearch, or ArcadeDB's
    flat graph before the hierarchical one): ``CREATE ... IF NOT EXISTS``
    keeps an existing index as it is, so only this changes it.
    """
    stored = await embedding_meta.read(graph)
    if stored is None:
        raise ConfigError("this graph was never set up: run `hippograph init` first")
    if (mixed := embedding_meta.interrupted(stored)) is not None:
        # Indexes of the old model's size over vectors of two sizes.
        raise ConfigError(mixed)
    await dialect.rebuild_vector_indexes(graph, stored.vectors.dimensions)
    return stored.vectors.dimensions
