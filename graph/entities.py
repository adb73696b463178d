"""Entity nodes, the MENTIONS edges to them, and search's walk over them.

An ``Entity`` is one user's name for a person, place, organisation, thing or
date, merged by its normalised name: its id is derived from (user, name)
(:func:`hippograph.entities.entity_id`), so writes MERGE by id and a replay
finds what the first run made. Messages and memories point at the entities
they mention with ``MENTIONS`` edges, written in the transaction that writes
the memories. Deleting a message or memory removes its edges with it, and
:func:`prune` then removes the entities nothing mentions any more.

The walk (:meth:`EntityGraph.walk`) is one step of personalized PageRank
from the query's entities, in one round trip: each matched entity spreads a
seed weight over the memories that mention it. An entity mentioned by more
than ``cap`` memories (a speaker's name, "today") is skipped: reading its
edges would cost more than it tells, and its inverse-degree weight would be
near nothing anyway. The same Cypher runs on ArcadeDB and both Neo4j
releases: ``COUNT {}`` subqueries, ``UNWIND``, ``collect``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction

from graph.candidate_rows import MEMORY_ROW
from graph.cypher import VISIBLE_N, cypher, locked
from graph.driver import GraphDriver, fetch
from graph.filters import FILTER_M, filter_params
from graph.links import require_linked
from graph.records import MEMORY_MAP, memory_from
from hippograph.entities import entity_id
from hippograph.ids import IdKind, kind_of
from hippograph.models import (
    Edge,
    EdgeType,
    Entity,
    EntityKind,
    Memory,
    MemoryFilter,
    Mentions,
    Page,
)
from hippograph.scoring import Candidate

MERGE_ENTITIES = cypher(
    "entities.MERGE_ENTITIES",
    "UNWIND $rows AS row MERGE (e:Entity {id: row.id}) "
    "ON CREATE SET e.user_id = row.user_id, e.name = row.name, e.norm = row.norm, "
    "e.kind = row.kind "
    "RETURN collect([e.id, elementId(e)]) AS rows",
)
# The first mention made the entity; a later one may read it better: a kind
# (a place, a person) where the first saw a thing, a capitalised name where
# the first opened a sentence ("boston is lovely", then "moved to Boston").
# Only such rows are written, so an entity named in every message (a
# speaker) is not locked by each write that mentions it.
_BETTER = (
    "(e.kind = 'thing' AND row.kind <> 'thing') "
    "OR (e.name = toLower(e.name) AND row.name <> toLower(row.name))"
)
UPGRADE_ENTITIES = cypher(
    "entities.UPGRADE_ENTITIES",
    "UNWIND $rows AS row MATCH (e:Entity {id: row.id}) WHERE " + _BETTER + " "
    "SET e.kind = CASE WHEN e.kind = 'thing' THEN row.kind ELSE e.kind END, "
    "e.name = CASE WHEN e.name = toLower(e.name) THEN row.name ELSE e.name END "
    "RETURN count(e) AS upgraded",
)
# Memories get their edges in the transaction that creates them, so theirs
# are CREATEd: a MERGE would look for an existing edge, and an entity such as
# a speaker's name has thousands of incoming ones. A message may have been
# linked before (turn memories and memorize both read it), so its edges are
# looked for from the message's side, which has a few. A row is one source
# and the element ids of its entities (from the MERGE, in this transaction):
# a seek by element id costs less than an index lookup by our id, and each
# source is looked up once rather than once per entity.
LINK_NEW_MEMORIES = cypher(
    "entities.LINK_NEW_MEMORIES",
    "UNWIND $rows AS row MATCH (m:Memory {id: row.source}) "
    "UNWIND row.entities AS ee MATCH (e) WHERE elementId(e) = ee "
    "CREATE (m)-[:MENTIONS]->(e) RETURN count(e) AS linked",
)
# ``linked`` counts the entities found, whether their edge was there or made:
# one pruned since the MERGE above (graph/cascade.py) is missing, and the
# caller runs the whole write again, which MERGEs it anew.
_LINK_OLD = (
    "UNWIND row.entities AS ee MATCH (e) WHERE elementId(e) = ee "
    "OPTIONAL MATCH (m)-[old:MENTIONS]->(e) "
    "WITH m, e, count(old) AS existing "
    "FOREACH (new IN CASE existing WHEN 0 THEN [1] ELSE [] END | CREATE (m)-[:MENTIONS]->(e)) "
    "RETURN count(e) AS linked"
)
LINK_MESSAGES = cypher(
    "entities.LINK_MESSAGES", "UNWIND $rows AS row MATCH (m:Message {id: row.source}) " + _LINK_OLD
)
# A memory whose text was rewritten (forgetting's levels) names what its new
# text names: it may be linked to some of them already.
LINK_OLD_MEMORIES = cypher(
    "entities.LINK_OLD_MEMORIES",
    "UNWIND $rows AS row MATCH (m:Memory {id: row.source}) " + _LINK_OLD,
)
UNLINK_MEMORIES = cypher(
    "entities.UNLINK_MEMORIES",
    "UNWIND $rows AS row MATCH (m:Memory {id: row.source})-[r:MENTIONS]->(e:Entity) "
    "WHERE e.norm IN row.norms DELETE r RETURN collect(DISTINCT e.id) AS ids",
)
MENTIONED_BY = {
    "Memory": cypher(
        "entities.MENTIONED_BY_MEMORIES",
        "UNWIND $ids AS id MATCH (:Memory {id: id})-[:MENTIONS]->(e:Entity) "
        "RETURN collect(DISTINCT e.id) AS ids",
    ),
    "Message": cypher(
        "entities.MENTIONED_BY_MESSAGES",
        "UNWIND $ids AS id MATCH (:Message {id: id})-[:MENTIONS]->(e:Entity) "
        "RETURN collect(DISTINCT e.id) AS ids",
    ),
}
# Each entity is tested under its write lock (ids sorted): on Neo4j a memory
# naming it, committed between an unlocked count and the delete, lost its edge.
PRUNE = cypher(
    "entities.PRUNE",
    "UNWIND $ids AS id MATCH (e:Entity {id: id}) "
    + locked("e")
    + "WHERE COUNT { (e)<-[:MENTIONS]-() } = 0 "
    "DETACH DELETE e RETURN count(*) AS pruned",
)

# One step of personalized PageRank from the query's entities. Seeds are
# found by id (the unique index): the ids are derived from the user and the
# names, so another user's entity can never be among them, and the user_id
# test says so again. Only named entities seed the walk: people, places,
# organisations, dates, and things written with a capital (a name, or what an
# LLM named); a lower-case keyword phrase is what BM25 already scores, and a
# second signal should say something the first does not. A seed with more
# than $cap MENTIONS edges (from messages and memories) is dropped before any
# is read: counting a node's edges of one type, whatever is at their other
# end, is Neo4j's degree lookup, where counting only those from memories
# would walk them all. A seed's degree is then the memories it reached.
# A walked memory's row is a search candidate's (graph/search.py).
_ROW = MEMORY_ROW.items
WALK = cypher(
    "entities.WALK",
    "UNWIND $ids AS id MATCH (e:Entity {id: id}) WHERE e.user_id = $user_id "
    "AND (e.kind <> 'thing' OR e.name <> toLower(e.name)) "
    "AND COUNT { (e)<-[:MENTIONS]-() } <= $cap "
    "MATCH (e)<-[:MENTIONS]-(m:Memory) WHERE m.user_id = $user_id AND " + FILTER_M + " "
    "WITH e.id AS entity, collect([" + _ROW + "]) AS rows "
    "RETURN collect([entity, size(rows), rows]) AS seeds",
)
ENTITY_PAGE = cypher(
    "entities.ENTITY_PAGE",
    "MATCH (e:Entity {user_id: $user_id}) WHERE $after IS NULL OR e.id > $after "
    "WITH e ORDER BY e.id ASC LIMIT $limit "
    "RETURN collect([e.id, e.user_id, e.name, e.norm, e.kind, "
    "COUNT { (e)<-[:MENTIONS]-() }]) AS rows",
)
GET_ENTITIES = cypher(
    "entities.GET_ENTITIES",
    "UNWIND $ids AS id MATCH (n:Entity {id: id}) WHERE " + VISIBLE_N + " "
    "RETURN collect([n.id, n.user_id, n.name, n.norm, n.kind, "
    "COUNT { (n)<-[:MENTIONS]-() }]) AS rows",
)
# Every version of a memory that names the entity (its history is what was
# said), but not a deleted one: the user took it back.
MENTIONED_IN = cypher(
    "entities.MENTIONED_IN",
    "MATCH (e:Entity {id: $id})<-[:MENTIONS]-(m:Memory) WHERE m.user_id = e.user_id "
    "AND m.deleted_at IS NULL AND ($after_ts IS NULL OR m.created_at < $after_ts "
    "OR (m.created_at = $after_ts AND m.id < $after_id)) "
    "WITH m ORDER BY m.created_at DESC, m.id DESC LIMIT $limit "
    "RETURN m " + MEMORY_MAP + " AS props",
)

# The dump's writes of entities and MENTIONS edges (graph/dump.py), in its
# shapes: only what is missing is made. Whether an edge exists is asked from
# its start: an entity has many incoming MENTIONS, a message or memory few.
DUMP_WRITE_ENTITIES = cypher(
    "dump.WRITE_ENTITIES",
    "UNWIND $rows AS row OPTIONAL MATCH (old:Entity {id: row.id}) WITH row WHERE old IS NULL "
    "MERGE (n:Entity {id: row.id}) SET n = row.props RETURN count(n) AS created",
)
_DUMP_MENTIONS: LiteralString = (
    "OPTIONAL MATCH (a)-[old:MENTIONS]->(x:Entity) WHERE x.id = link[1] "
    "WITH link, a, count(old) AS existing MATCH (b:Entity {id: link[1]}) "
    "FOREACH (new IN CASE existing WHEN 0 THEN [1] ELSE [] END | "
    "CREATE (a)-[r:MENTIONS]->(b) SET r = link[2]) "
    "RETURN count(*) AS linked, sum(CASE existing WHEN 0 THEN 1 ELSE 0 END) AS created"
)
DUMP_WRITE_MESSAGE_MENTIONS = cypher(
    "dump.WRITE_MESSAGE_MENTIONS",
    "UNWIND $links AS link MATCH (a:Message {id: link[0]}) " + _DUMP_MENTIONS,
)
DUMP_WRITE_MEMORY_MENTIONS = cypher(
    "dump.WRITE_MEMORY_MENTIONS",
    "UNWIND $links AS link MATCH (a:Memory {id: link[0]}) " + _DUMP_MENTIONS,
)
# The entities the nodes of a provenance subgraph mention, by label (each id
# lookup uses its label's unique index); every entity passes the tenant test.
_MENTIONED: LiteralString = (
    "-[:MENTIONS]->(n:Entity) WHERE " + VISIBLE_N + " "
    "RETURN collect([x.id, n.id, n.user_id, n.name, n.norm, n.kind, "
    "COUNT { (n)<-[:MENTIONS]-() }]) AS rows"
)
MENTIONS_OF = {
    "Memory": cypher(
        "entities.MENTIONS_OF_MEMORIES", "UNWIND $ids AS id MATCH (x:Memory {id: id})" + _MENTIONED
    ),
    "Message": cypher(
        "entities.MENTIONS_OF_MESSAGES",
        "UNWIND $ids AS id MATCH (x:Message {id: id})" + _MENTIONED,
    ),
}


def _entity(row: Sequence[Any]) -> Entity:
    return Entity(
        id=row[0],
        user_id=row[1],
        name=row[2],
        norm=row[3],
        kind=EntityKind(row[4]),
        mention_count=int(row[5]),
    )


async def write_mentions(
    tx: AsyncManagedTransaction, mentions: Sequence[Mentions], *, new_memories: bool = True
) -> int:
    """MERGE the entities of ``mentions`` and link them; edges asked for.

    With ``new_memories`` the memories among the sources are new in this
    transaction (their edges are created without looking for existing ones);
    messages may be old.
    """
    entities: dict[str, dict[str, str]] = {}
    sources: dict[str, dict[str, list[str]]] = {"Memory": {}, "Message": {}}
    for group in mentions:
        for mention in group.entities:
            eid = entity_id(group.user_id, mention.norm)
            row = {
                "id": eid,
                "user_id": group.user_id,
                "name": mention.name,
                "norm": mention.norm,
                "kind": mention.kind.value,
            }
            entities[eid] = _better(entities[eid], row) if eid in entities else row
            linked = sources[group.label].setdefault(group.node_id, [])
            if eid not in linked:
                linked.append(eid)
    if not entities:
        return 0
    # Sorted, so two writers lock shared entities in the same order.
    merging = [entities[k] for k in sorted(entities)]
    merged = await fetch(tx, MERGE_ENTITIES, {"rows": merging})
    await fetch(tx, UPGRADE_ENTITIES, {"rows": merging})
    element = dict(merged[0]["rows"]) if merged else {}
    total = 0
    memories = LINK_NEW_MEMORIES if new_memories else LINK_OLD_MEMORIES
    for label, query in (("Message", LINK_MESSAGES), ("Memory", memories)):
        rows = [
            {"source": source, "entities": [element[e] for e in linked]}
            for source, linked in sources[label].items()
        ]
        if rows:
            found = await fetch(tx, query, {"rows": rows})
            wanted = sum(len(r["entities"]) for r in rows)
            # A source gone, or an entity pruned since the MERGE: run it all again.
            require_linked(int(found[0]["linked"]), wanted, "entity", label.lower())
            total += wanted
    return total


def _better(old: dict[str, str], new: dict[str, str]) -> dict[str, str]:
    """One entity's reading from two mentions: a kind over a thing, a capitalised
    name over a lower-case one (as ``UPGRADE_ENTITIES`` does with the stored one)."""
    kind = new["kind"] if old["kind"] == "thing" else old["kind"]
    name = new["name"] if old["name"] == old["name"].lower() else old["name"]
    return old | {"kind": kind, "name": name}


async def mentioned_by(tx: AsyncManagedTransaction, label: str, ids: Sequence[str]) -> list[str]:
    """The entities the ``label`` nodes ``ids`` mention (read before deleting them)."""
    if label not in MENTIONED_BY or not ids:
        return []
    rows = await fetch(tx, MENTIONED_BY[label], {"ids": list(ids)})
    return list(rows[0]["ids"]) if rows else []


async def unlink_memories(tx: AsyncManagedTransaction, norms: Mapping[str, Sequence[str]]) -> int:
    """Drop each memory's MENTIONS of the entities named ``norms[memory id]``,
    and the entities nothing mentions now; how many entities were unlinked."""
    rows = [{"source": source, "norms": list(n)} for source, n in norms.items() if n]
    if not rows:
        return 0
    records = await fetch(tx, UNLINK_MEMORIES, {"rows": rows})
    unlinked = list(records[0]["ids"]) if records else []
    await prune(tx, unlinked)
    return len(unlinked)


async def prune(tx: AsyncManagedTransaction, entity_ids: Sequence[str]) -> int:
    """Delete the entities among ``entity_ids`` that nothing mentions any more."""
    if not entity_ids:
        return 0
    rows = await fetch(tx, PRUNE, {"ids": sorted(set(entity_ids))})
    return int(rows[0]["pruned"]) if rows else 0


class EntityGraph:
    """Entity reads: a user's entities, what mentions one, and search's walk."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def walk(
        self,
        user_id: str,
        norms: Sequence[str],
        cap: int,
        memory_filter: MemoryFilter,
        now: datetime,
    ) -> list[tuple[str, int, list[Candidate]]]:
        """For each of the user's named entities in ``norms`` with at most ``cap`` mentions
        (messages and memories): its id, how many memories passing the filter mention it,
        and those memories."""
        if not norms:
            return []
        params = filter_params(memory_filter, now) | {
            "ids": [entity_id(user_id, n) for n in dict.fromkeys(norms)],
            "user_id": user_id,
            "cap": cap,
        }
        records = await self._graph.query(WALK, params)
        seeds = records[0]["seeds"] if records else []
        return [
            (
                entity,
                int(degree),
                [MEMORY_ROW.read(r).candidate() for r in rows],
            )
            for entity, degree, rows in seeds
        ]

    async def entities(self, user_id: str, first: int, after: str | None) -> Page[Entity]:
        """A page of ``user_id``'s entities in id order, after the entity id ``after``."""
        records = await self._graph.query(
            ENTITY_PAGE, {"user_id": user_id, "after": after, "limit": first + 1}
        )
        rows = [_entity(r) for r in (records[0]["rows"] if records else [])]
        return Page(items=tuple(rows[:first]), has_next=len(rows) > first)

    async def mentions_of(
        self, ids: Sequence[str], scope: list[str] | None
    ) -> tuple[list[Entity], list[Edge]]:
        """The visible entities the memories and messages among ``ids`` mention, and the
        MENTIONS edges to them, in id order."""
        entities: dict[str, Entity] = {}
        edges: set[tuple[str, str]] = set()
        for kind, label in ((IdKind.MEMORY, "Memory"), (IdKind.MESSAGE, "Message")):
            wanted = [i for i in ids if kind_of(i) is kind]
            if not wanted:
                continue
            records = await self._graph.query(MENTIONS_OF[label], {"ids": wanted, "scope": scope})
            for row in records[0]["rows"] if records else []:
                entities.setdefault(row[1], _entity(row[1:]))
                edges.add((row[0], row[1]))
        return (
            [entities[k] for k in sorted(entities)],
            [Edge(source=s, type=EdgeType.MENTIONS, target=t) for s, t in sorted(edges)],
        )

    async def get_entities(self, ids: Sequence[str], scope: list[str] | None) -> dict[str, Entity]:
        """The visible entities among ``ids``, by id."""
        records = await self._graph.query(GET_ENTITIES, {"ids": list(ids), "scope": scope})
        return {e.id: e for e in (_entity(r) for r in (records[0]["rows"] if records else []))}

    async def mentioned_in(
        self, entity_id_: str, first: int, after: tuple[datetime, str] | None
    ) -> Page[Memory]:
        """A page of the memories mentioning an entity, newest first."""
        rows = await self._graph.query(
            MENTIONED_IN,
            {
                "id": entity_id_,
                "after_ts": after[0] if after else None,
                "after_id": after[1] if after else None,
                "limit": first + 1,
            },
        )
        memories = [memory_from(r["props"]) for r in rows]
        return Page(items=tuple(memories[:first]), has_next=len(memories) > first)
