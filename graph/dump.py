"""The whole graph read out to a dump, and a checked dump written back (see hippograph.dump).

Reads go label by label in pages ordered by id, one read transaction each, the
last id as the cursor (SKIP would walk past every earlier node again). Writes
go in batches, one transaction each, nodes before edges, and make only what is
missing, so importing a dump twice creates nothing new; an import cut short is
finished by running it again. Each label and edge type has its own constant
query, chosen from the dicts below: none is ever formatted into a string.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from datetime import datetime
from functools import partial
from typing import Any, LiteralString, TextIO

from neo4j import AsyncManagedTransaction
from neo4j.time import DateTime

from graph import embedding_meta, entities
from graph.cypher import WRITE_COUNTERS, cypher, provenance_write
from graph.driver import GraphDriver, fetch
from graph.embedding_meta import READ as READ_EMBEDDING_META
from graph.links import require_linked
from graph.records import float32, to_utc
from hippograph.dump import (
    EDGE_KINDS,
    EDGE_START_LABELS,
    NODE_LABELS,
    SETUP_LABELS,
    CheckedDump,
    DumpCounts,
    DumpHeader,
    EdgeKind,
    EdgeRecord,
    EmbeddingInfo,
    ExportError,
    NodeRecord,
    edge_line,
    header_line,
    node_line,
    records,
)
from hippograph.dump_report import DumpReport
from hippograph.models import EdgeType

Progress = Callable[[int], object]

LABEL_COUNTS = cypher(
    "dump.LABEL_COUNTS", "MATCH (n) RETURN labels(n) AS labels, count(n) AS total"
)
EDGE_COUNTS = cypher(
    "dump.EDGE_COUNTS", "MATCH ()-[r]->() RETURN type(r) AS type, count(r) AS total"
)

# Each label's queries are named after it: (label, its name in a query's name,
# the plural its node writes are named by).
_LABELS: tuple[tuple[LiteralString, str, str], ...] = (
    ("User", "USER", "USERS"),
    ("Session", "SESSION", "SESSIONS"),
    ("Message", "MESSAGE", "MESSAGES"),
    ("MemUnit", "MEMUNIT", "MEMUNITS"),
    ("Memory", "MEMORY", "MEMORIES"),
    ("Entity", "ENTITY", "ENTITIES"),
    ("ApiKey", "APIKEY", "APIKEYS"),
    ("Job", "JOB", "JOBS"),
)

_PAGE: LiteralString = (
    " WHERE n.id > $after RETURN n.id AS id, properties(n) AS props ORDER BY id LIMIT $limit"
)
NODE_PAGES: dict[str, LiteralString] = {
    label: cypher("dump." + name + "_PAGE", "MATCH (n:" + label + ")" + _PAGE)
    for label, name, _ in _LABELS
}

# A page of start nodes with every edge going out of them; a node without any
# still gives a row (all nulls but its id), so the cursor moves past it.
_OUT_EDGES: LiteralString = (
    " WHERE a.id > $after WITH a ORDER BY a.id LIMIT $limit "
    "OPTIONAL MATCH (a)-[r]->(b) "
    "RETURN a.id AS from_id, type(r) AS type, labels(b) AS to_labels, b.id AS to_id, "
    "properties(r) AS props ORDER BY from_id, type, to_id"
)
EDGE_PAGES: dict[str, LiteralString] = {
    label: cypher("dump." + name + "_EDGE_PAGE", "MATCH (a:" + label + ")" + _OUT_EDGES)
    for label, name, _ in _LABELS
    if label in EDGE_START_LABELS
}

# Only missing nodes are written: what exists is left as it is (the first write
# wins, as for messages), and the count says what this batch made. Entities
# merge by their name instead (graph/entities.py).
WRITE_NODES: dict[str, LiteralString] = {
    label: cypher(
        "dump.WRITE_" + plural,
        "UNWIND $rows AS row OPTIONAL MATCH (old:"
        + label
        + " {id: row.id}) WITH row WHERE old IS NULL MERGE (n:"
        + label
        + " {id: row.id}) SET n = row.props RETURN count(n) AS created",
    )
    for label, _, plural in _LABELS
    if label != "Entity"
} | {"Entity": entities.DUMP_WRITE_ENTITIES}

# A link is [start id, end id, properties]. Whether the edge exists is asked
# from its end, which has few incoming edges of the type, where a MERGE may walk
# the start's: with a session's 20,000 HAS_MESSAGE edges, ArcadeDB's MERGE went
# quadratic (1,000 links took 19 s; this way 0.3 s). Only new edges are made.
# A derivation changes its source, as every other write of one does
# (graph/cypher.py: provenance_write), so a load into a live graph cannot
# race a deletion along provenance unseen; the count is not exported.
_LINKED: LiteralString = (
    "RETURN count(*) AS linked, sum(CASE existing WHEN 0 THEN 1 ELSE 0 END) AS created"
)


# Each kind of edge a dump writes here, with the name of its query.
_EDGE_WRITES: tuple[tuple[LiteralString, LiteralString, LiteralString, str], ...] = (
    ("HAS_SESSION", "User", "Session", "WRITE_HAS_SESSION"),
    ("HAS_MESSAGE", "Session", "Message", "WRITE_HAS_MESSAGE"),
    ("DERIVED_FROM", "MemUnit", "Message", "WRITE_MEMUNIT_DERIVED_FROM_MESSAGE"),
    ("DERIVED_FROM", "Memory", "Message", "WRITE_MEMORY_DERIVED_FROM_MESSAGE"),
    ("DERIVED_FROM", "Memory", "MemUnit", "WRITE_MEMORY_DERIVED_FROM_MEMUNIT"),
    ("DERIVED_FROM", "Memory", "Memory", "WRITE_MEMORY_DERIVED_FROM_MEMORY"),
    ("SUMMARIZES", "Memory", "Memory", "WRITE_SUMMARIZES"),
    ("SUPERSEDES", "Memory", "Memory", "WRITE_SUPERSEDES"),
)


def _write_edges(
    name: str, edge: LiteralString, start: LiteralString, end: LiteralString
) -> LiteralString:
    """The query that writes missing ``(start)-[edge]->(end)`` links, named ``dump.<name>``."""
    derives = edge in (EdgeType.DERIVED_FROM, EdgeType.SUMMARIZES)
    return cypher(
        "dump." + name,
        "UNWIND $links AS link MATCH (b:"
        + end
        + " {id: link[1]}) OPTIONAL MATCH (b)<-[old:"
        + edge
        + "]-(x:"
        + start
        + ") WHERE x.id = link[0] WITH link, b, count(old) AS existing MATCH (a:"
        + start
        + " {id: link[0]}) FOREACH (new IN CASE existing WHEN 0 THEN [1] ELSE [] END | "
        "CREATE (a)-[r:"
        + edge
        + "]->(b) SET r = link[2]) "
        + (provenance_write("b") if derives else "")
        + _LINKED,
    )


WRITE_EDGES: dict[EdgeKind, LiteralString] = {
    (EdgeType(edge), start, end): _write_edges(name, edge, start, end)
    for edge, start, end, name in _EDGE_WRITES
} | {
    (EdgeType.MENTIONS, "Message", "Entity"): entities.DUMP_WRITE_MESSAGE_MENTIONS,
    (EdgeType.MENTIONS, "Memory", "Entity"): entities.DUMP_WRITE_MEMORY_MENTIONS,
}


def _plain(value: Any) -> Any:
    """Driver values as the dump format takes them: datetimes aware, in UTC."""
    if isinstance(value, dict):
        return {key: _plain(v) for key, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, DateTime):
        return to_utc(value)
    return value  # other temporal types are refused, by name, when encoded


def _data(props: Mapping[str, Any]) -> dict[str, Any]:
    """A node's properties as a dump carries them: without the write counters."""
    return {k: _plain(v) for k, v in props.items() if k not in WRITE_COUNTERS}


def _storable(props: Mapping[str, Any]) -> dict[str, Any]:
    """Properties as the store writes them: vectors rounded to float32 (see graph.records)."""
    stored = dict(props)
    if isinstance(stored.get("embedding"), list):
        stored["embedding"] = float32(stored["embedding"])
    return stored


_KINDS_BY_NAME = {(t.value, start, end): (t, start, end) for t, start, end in EDGE_KINDS}


def _edge(from_label: str, row: Mapping[str, Any]) -> EdgeRecord:
    """An outgoing edge the graph reported, if a dump can carry it."""
    to_labels = list(row["to_labels"])
    kind = (
        _KINDS_BY_NAME.get((row["type"], from_label, to_labels[0])) if len(to_labels) == 1 else None
    )
    if kind is None:
        raise ExportError(
            f"the graph holds a {row['type']} edge from {from_label} {row['from_id']!r} "
            f"to {to_labels} {row['to_id']!r}, which a dump does not carry"
        )
    return EdgeRecord(kind, row["from_id"], row["to_id"], _plain(row["props"] or {}))


class DumpGraph:
    """The graph's side of ``hippograph export`` and ``hippograph import`` of a dump."""

    def __init__(self, graph: GraphDriver) -> None:
        self._graph = graph

    async def export(
        self, out: TextIO, now: datetime, *, page_size: int = 1000, progress: Progress | None = None
    ) -> DumpCounts:
        """Write every node and edge to ``out``; what it wrote, by label and type.

        ``ExportError`` if the graph holds a label or an edge a dump cannot
        carry (before anything is written), or if it changed meanwhile (after).
        """
        counts, embedding = await self._census()
        out.write(header_line(DumpHeader(now, embedding, counts)))
        written = DumpCounts()
        for label in NODE_LABELS:
            async for page in self._pages(NODE_PAGES[label], page_size, "id"):
                out.writelines(node_line(NodeRecord(label, _data(r["props"]))) for r in page)
                written.nodes[label] += len(page)
                if progress:
                    progress(len(page))
        for label in EDGE_START_LABELS:
            async for page in self._pages(EDGE_PAGES[label], page_size, "from_id"):
                edges = [_edge(label, r) for r in page if r["type"] is not None]
                out.writelines(edge_line(edge) for edge in edges)
                for edge in edges:
                    written.edges[edge.kind[0].value] += 1
                if progress:
                    progress(len(edges))
        if written != counts:
            raise ExportError(
                "the graph changed while it was exported (or holds edges a dump does not "
                "carry): export from a store no one is writing to"
            )
        return counts

    async def load(
        self, dump: CheckedDump, *, batch_size: int = 1000, progress: Progress | None = None
    ) -> DumpReport:
        """Write a checked dump into this graph (set up first, for the indexes)."""
        report = DumpReport()
        nodes: dict[str, list[dict[str, Any]]] = {}
        edges: dict[EdgeKind, list[list[Any]]] = {}

        async def flush_nodes(label: str) -> None:
            batch = nodes.pop(label)
            created = await self._write_nodes(label, batch)
            report.nodes_created += created
            report.nodes_existing += len(batch) - created
            if progress:
                progress(len(batch))

        async def flush_edges(kind: EdgeKind) -> None:
            batch = edges.pop(kind)
            created = await self._write_edges(kind, batch)
            report.edges_created += created
            report.edges_existing += len(batch) - created
            if progress:
                progress(len(batch))

        for _, record in records(dump.path, dump.header):
            if isinstance(record, NodeRecord):
                row = {"id": record.props["id"], "props": _storable(record.props)}
                nodes.setdefault(record.label, []).append(row)
                if len(nodes[record.label]) >= batch_size:
                    await flush_nodes(record.label)
                continue
            for label in list(nodes):  # the first edge: every node is in before any edge
                await flush_nodes(label)
            link = [record.from_id, record.to_id, _storable(record.props)]
            edges.setdefault(record.kind, []).append(link)
            if len(edges[record.kind]) >= batch_size:
                await flush_edges(record.kind)
        for label in list(nodes):
            await flush_nodes(label)
        for kind in list(edges):
            await flush_edges(kind)
        return report

    async def _census(self) -> tuple[DumpCounts, EmbeddingInfo]:
        """Nodes by label, edges by type and the embedding model; refuses what a dump lacks."""

        async def work(tx: AsyncManagedTransaction) -> tuple[list[Any], list[Any], list[Any]]:
            return (
                await fetch(tx, LABEL_COUNTS),
                await fetch(tx, EDGE_COUNTS),
                await fetch(tx, READ_EMBEDDING_META),
            )

        labels, types, meta = await self._graph.read(work)
        counts = DumpCounts()
        for names, total in ((list(r["labels"]), r["total"]) for r in labels):
            if len(names) != 1 or names[0] not in counts.nodes.keys() | SETUP_LABELS:
                raise ExportError(f"a dump cannot carry the {total} nodes labelled {names}")
            if names[0] in counts.nodes:
                counts.nodes[names[0]] = int(total)
        for row in types:
            if row["type"] not in counts.edges:
                raise ExportError(f"a dump cannot carry the {row['total']} {row['type']} edges")
            counts.edges[row["type"]] = int(row["total"])
        if not meta:
            raise ExportError(
                "the graph has no embedding record: it was never set up (`hippograph init`)"
            )
        stored = embedding_meta.stored_from(meta[0])
        if (mixed := embedding_meta.interrupted(stored)) is not None:
            # Two models' vectors, which the dump would label as one: the
            # imported graph would then start and misrank searches.
            raise ExportError(f"{mixed}, then export")
        vectors = stored.vectors
        return counts, EmbeddingInfo(vectors.model, vectors.dimensions, vectors.precision)

    async def _pages(
        self, query: LiteralString, size: int, cursor: str
    ) -> AsyncIterator[list[dict[str, Any]]]:
        after = ""  # every id sorts after the empty string
        while True:
            page = await self._graph.read(partial(_page, query, after, size))
            if not page:
                return
            yield page
            after = page[-1][cursor]

    async def _write_nodes(self, label: str, rows: list[dict[str, Any]]) -> int:
        async def work(tx: AsyncManagedTransaction) -> int:
            return int((await fetch(tx, WRITE_NODES[label], {"rows": rows}))[0]["created"])

        return await self._graph.write(work, merge_only=True)

    async def _write_edges(self, kind: EdgeKind, links: list[list[Any]]) -> int:
        async def work(tx: AsyncManagedTransaction) -> int:
            [row] = await fetch(tx, WRITE_EDGES[kind], {"links": links})
            # The file was checked, so an end can only have gone meanwhile.
            detail = f"an end of one of {len(links)} {kind[0]} edges"
            require_linked(int(row["linked"]), len(links), "node", detail)
            return int(row["created"])

        return await self._graph.write(work)


async def _page(
    query: LiteralString, after: str, size: int, tx: AsyncManagedTransaction
) -> list[dict[str, Any]]:
    return [dict(row) for row in await fetch(tx, query, {"after": after, "limit": size})]
