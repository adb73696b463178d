"""Portable dumps of the whole graph as JSON Lines: the format, its checks, export, import.

A dump moves a store between servers (the embedded ArcadeDB to Neo4j, say)
without re-embedding anything. It is UTF-8 text, one JSON object per line:

1. a header::

     {"format": "hippograph-dump", "version": 1, "exported_at": "2024-05-01T10:00:00+00:00",
      "embedding": {"model": "e5-small-v2", "dimensions": 384},
      "counts": {"nodes": {"User": 2, ...}, "edges": {"HAS_SESSION": 3, ...}}}

2. one line per node, label by label in the order of :data:`NODE_LABELS`, each
   label in id order::

     {"node": "Memory", "props": {"id": "mem_...", "created_at": {"$datetime": "..."}, ...}}

3. one line per edge, after every node, so an import can stream::

     {"edge": "DERIVED_FROM", "from": "mem_...", "from_label": "Memory",
      "to": "mu_...", "to_label": "MemUnit", "props": {}}

Property values are JSON strings, numbers, booleans and lists of them; a
datetime is ``{"$datetime": "<ISO 8601 in UTC>"}`` (see hippograph.dump_values).
Every property is carried as
stored, vectors (``embedding``, float32 values) and search tokens
(``search_text``, ``user_key``) included, so the imported nodes are indexed as
they are written. ``Meta`` is not dumped: the schema setup that runs before an
import makes it from the header's ``embedding``.

An import reads the file twice. The first pass checks every line (its shape,
declared by :class:`HeaderShape`, :class:`NodeShape` and :class:`EdgeShape`;
each edge's ends among the nodes; counts against the header) and nothing is
written if one is wrong; the second writes in batches, merging on id, so importing a
file twice creates nothing new. See docs/dump.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from hippograph.dump_values import PropertyValue, Time, encode_value
from hippograph.errors import HippoError, InvalidInput
from hippograph.located import json_object, utf8_lines, validate_line
from hippograph.models import EdgeType

FORMAT = "hippograph-dump"
VERSION = 1
NODE_LABELS: tuple[str, ...] = (
    "User",
    "Session",
    "Message",
    "MemUnit",
    "Memory",
    "Entity",
    "ApiKey",
    "Job",
)
# Made by the schema setup (graph/setup.py), never dumped.
SETUP_LABELS = frozenset({"Meta"})

EdgeKind = tuple[EdgeType, str, str]
"""An edge type with the labels of its start and end."""

# Every edge the graph modules make, by type and the labels of its ends.
EDGE_KINDS: tuple[EdgeKind, ...] = (
    (EdgeType.HAS_SESSION, "User", "Session"),
    (EdgeType.HAS_MESSAGE, "Session", "Message"),
    (EdgeType.DERIVED_FROM, "MemUnit", "Message"),
    (EdgeType.DERIVED_FROM, "Memory", "Message"),
    (EdgeType.DERIVED_FROM, "Memory", "MemUnit"),
    (EdgeType.DERIVED_FROM, "Memory", "Memory"),
    (EdgeType.SUMMARIZES, "Memory", "Memory"),
    (EdgeType.SUPERSEDES, "Memory", "Memory"),
    (EdgeType.MENTIONS, "Message", "Entity"),
    (EdgeType.MENTIONS, "Memory", "Entity"),
)
# The labels whose outgoing edges an export reads, in dump order.
EDGE_START_LABELS: tuple[str, ...] = tuple(dict.fromkeys(kind[1] for kind in EDGE_KINDS))

_KINDS: dict[tuple[str, str, str], EdgeKind] = {(k[0].value, k[1], k[2]): k for k in EDGE_KINDS}


class ExportError(HippoError):
    """The graph holds something a dump cannot carry, or changed during the export."""

    code = "EXPORT"


@dataclass(frozen=True, slots=True)
class EmbeddingInfo:
    """The model the dumped vectors were made by, and the precision it ran at."""

    model: str
    dimensions: int
    precision: str = "float32"


@dataclass(frozen=True, slots=True)
class DumpCounts:
    """Nodes by label and edges by type."""

    nodes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(NODE_LABELS, 0))
    edges: dict[str, int] = field(default_factory=lambda: {t.value: 0 for t in EdgeType})

    @property
    def total(self) -> int:
        """Every line after the header."""
        return sum(self.nodes.values()) + sum(self.edges.values())


@dataclass(frozen=True, slots=True)
class DumpHeader:
    """A dump's first line."""

    exported_at: datetime
    embedding: EmbeddingInfo
    counts: DumpCounts
    version: int = VERSION


@dataclass(frozen=True, slots=True)
class NodeRecord:
    """One node: its label and every property (``id`` among them)."""

    label: str
    props: dict[str, Any]


@dataclass(frozen=True, slots=True)
class EdgeRecord:
    """One edge between two nodes named by id."""

    kind: EdgeKind
    from_id: str
    to_id: str
    props: dict[str, Any]


# --- writing ----------------------------------------------------------------------------


def _encode_props(props: Mapping[str, Any], where: str) -> dict[str, Any]:
    try:
        return {key: encode_value(props[key]) for key in sorted(props)}
    except TypeError as exc:
        raise ExportError(f"{where}: {exc}") from exc


def _dumps(line: Mapping[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"


def header_line(header: DumpHeader) -> str:
    """The header as a line of the file."""
    return _dumps(
        {
            "format": FORMAT,
            "version": header.version,
            "exported_at": header.exported_at.astimezone(UTC).isoformat(),
            "embedding": asdict(header.embedding),
            "counts": {"nodes": header.counts.nodes, "edges": header.counts.edges},
        }
    )


def node_line(node: NodeRecord) -> str:
    """A node as a line of the file (properties in key order, so dumps compare)."""
    where = f"{node.label} {node.props.get('id')!r}"
    return _dumps({"node": node.label, "props": _encode_props(node.props, where)})


def edge_line(edge: EdgeRecord) -> str:
    """An edge as a line of the file."""
    edge_type, from_label, to_label = edge.kind
    where = f"{edge_type.value} edge from {edge.from_id!r}"
    return _dumps(
        {
            "edge": edge_type.value,
            "from": edge.from_id,
            "from_label": from_label,
            "to": edge.to_id,
            "to_label": to_label,
            "props": _encode_props(edge.props, where),
        }
    )


# --- the shapes of the lines ------------------------------------------------------------


def _known_label(value: str) -> str:
    if value not in NODE_LABELS:
        raise ValueError(f"unknown label {value!r}; a dump holds {list(NODE_LABELS)}")
    return value


def _known_edge_type(value: str) -> str:
    if value not in EdgeType.__members__:
        raise ValueError(f"unknown edge type {value!r}; known: {list(EdgeType.__members__)}")
    return value


_Label = Annotated[str, AfterValidator(_known_label)]
_EdgeTypeName = Annotated[str, AfterValidator(_known_edge_type)]
_Count = Annotated[int, Field(ge=0)]


class _Line(BaseModel):
    # Strict: a dump is written by code, so "1" for 1 or true for 1 is damage, not style.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _EmbeddingShape(_Line):
    model: str
    dimensions: int = Field(ge=1)
    # Dumps written before it was recorded hold float32 vectors.
    precision: Literal["float32", "bfloat16", "int8"] = "float32"


class _CountsShape(_Line):
    # A label or edge type left out counts 0.
    nodes: dict[_Label, _Count]
    edges: dict[_EdgeTypeName, _Count]


class HeaderShape(_Line):
    """The header line's shape (its format and version are checked before it)."""

    format: str
    version: int
    exported_at: Time
    embedding: _EmbeddingShape
    counts: _CountsShape


class _RecordShape(_Line):
    props: dict[str, PropertyValue]

    @model_validator(mode="after")
    def _vector_fits(self, info: ValidationInfo) -> Self:
        # The vector indexes take vectors of the header's size only; its
        # dimensions come in the validation context.
        dimensions: int = (info.context or {})["dimensions"]
        vector = self.props.get("embedding")
        if vector is not None and not (
            isinstance(vector, list)
            and len(vector) == dimensions
            and all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector)
        ):
            raise ValueError(f"props.embedding must be {dimensions} numbers")
        return self


class NodeShape(_RecordShape):
    """A node line's shape: a known label and properties with a string ``id``."""

    node: _Label

    @model_validator(mode="after")
    def _has_id(self) -> Self:
        node_id = self.props.get("id")
        if not isinstance(node_id, str) or not node_id:
            raise ValueError("props.id must be a non-empty string")
        return self


class EdgeShape(_RecordShape):
    """An edge line's shape: a kind of :data:`EDGE_KINDS` and the ids of its ends."""

    edge: _EdgeTypeName
    from_id: str = Field(alias="from")
    from_label: _Label
    to_id: str = Field(alias="to")
    to_label: _Label

    @model_validator(mode="after")
    def _known_kind(self) -> Self:
        if (self.edge, self.from_label, self.to_label) not in _KINDS:
            raise ValueError(
                f"no {self.edge} edge goes from a {self.from_label} to a {self.to_label}"
            )
        return self

    @property
    def kind(self) -> EdgeKind:
        """The edge's type with the labels of its ends."""
        return _KINDS[(self.edge, self.from_label, self.to_label)]


# --- reading and checking a file --------------------------------------------------------


def looks_like_dump(path: Path) -> bool:
    """Whether the file's first line is a dump header (any version)."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        first = handle.readline(1 << 16).lstrip("\ufeff")
    try:
        head = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(head, dict) and head.get("format") == FORMAT


def parse_header(line: str, where: str) -> DumpHeader:
    """The header line, checked: this format, a version this code reads, every field."""
    raw = json_object(line, where)
    if raw.get("format") != FORMAT:
        raise InvalidInput(f"{where}: not a HippoGraph dump (no {FORMAT!r} header)")
    # Before the shape: another version may differ in any other key. (True == 1.)
    version = raw.get("version")
    if version != VERSION or isinstance(version, bool):
        raise InvalidInput(
            f"{where}: dump version {version!r} is not supported "
            f"(this HippoGraph reads version {VERSION})"
        )
    header = validate_line(HeaderShape, raw, where)
    counts = DumpCounts()
    counts.nodes.update(header.counts.nodes)
    counts.edges.update(header.counts.edges)
    embedding = EmbeddingInfo(**header.embedding.model_dump())
    return DumpHeader(header.exported_at, embedding, counts)


def parse_record(line: str, where: str, dimensions: int) -> NodeRecord | EdgeRecord:
    """A node or edge line, checked on its own (its ends are checked by :func:`check_dump`)."""
    raw = json_object(line, where)
    context = {"dimensions": dimensions}
    if "node" in raw:
        node = validate_line(NodeShape, raw, where, context)
        return NodeRecord(node.node, node.props)
    if "edge" not in raw:
        raise InvalidInput(f"{where}: a line after the header is a node or an edge")
    edge = validate_line(EdgeShape, raw, where, context)
    return EdgeRecord(edge.kind, edge.from_id, edge.to_id, edge.props)


@dataclass(frozen=True, slots=True)
class CheckedDump:
    """A dump file whose every line has been checked; only these are imported."""

    path: Path
    header: DumpHeader


def records(path: Path, header: DumpHeader) -> Iterator[tuple[str, NodeRecord | EdgeRecord]]:
    """Every node and edge of the file after the header, with where it is ("x.jsonl line 7")."""
    for number, line in utf8_lines(path, first=2):
        if line.strip():
            where = f"{path.name} line {number}"
            yield where, parse_record(line, where, header.embedding.dimensions)


def check_dump(path: Path) -> CheckedDump:
    """Check the whole file: every line, each edge's ends among its nodes, the counts.

    Every error names the line it is on. Holds the ids of the file's nodes
    (about 100 bytes each) to check the edges against.
    """
    first = next(utf8_lines(path), (1, ""))[1]
    header = parse_header(first.lstrip("\ufeff"), f"{path.name} line 1")
    found = DumpCounts()
    nodes: set[tuple[str, str]] = set()
    edges_started = False
    for where, record in records(path, header):
        if isinstance(record, NodeRecord):
            if edges_started:
                raise InvalidInput(f"{where}: a node after the edges (nodes come first)")
            key = (record.label, str(record.props["id"]))
            if key in nodes:
                raise InvalidInput(f"{where}: {record.label} {key[1]!r} appears twice")
            nodes.add(key)
            found.nodes[record.label] += 1
            continue
        edges_started = True
        edge_type, from_label, to_label = record.kind
        for label, node_id in ((from_label, record.from_id), (to_label, record.to_id)):
            if (label, node_id) not in nodes:
                raise InvalidInput(f"{where}: the edge's {label} {node_id!r} is not in the dump")
        found.edges[edge_type.value] += 1
    if found != header.counts:
        raise InvalidInput(
            f"{path.name}: the header counts {_describe(header.counts)} but the file holds "
            f"{_describe(found)} (is it cut short?)"
        )
    return CheckedDump(path, header)


def _describe(counts: DumpCounts) -> str:
    parts = {**counts.nodes, **counts.edges}
    return ", ".join(f"{n} {name}" for name, n in parts.items() if n) or "nothing"
