"""Portable dumps of the whole graph as JSON Lines: the format, its checks, export, import.

A dump moves a store between servers (the embedded ArcadeDB to Neo4j, say)
without re-embedding anything. It is UTF-8 text, one JSON object per line:

1. a header::

     {"format": "hippograph-dump", "version": 1, "exported_at": "2024-05-01T10:00:00+00:00",
      "embedding": {"model": "all-MiniLM-L6-v2", "dimensions": 384},
      "counts": {"nodes": {"User": 2, ...}, "edges": {"HAS_SESSION": 3, ...}}}

2. one line per node, label by label in the order of :data:`NODE_LABELS`, each
   label in id order::

     {"node": "Memory", "props": {"id": "mem_...", "created_at": {"$datetime": "..."}, ...}}

3. one line per edge, after every node, so an import can stream::

     {"edge": "DERIVED_FROM", "from": "mem_...", "from_label": "Memory",
      "to": "mu_...", "to_label": "MemUnit", "props": {}}

Property values are JSON strings, numbers, booleans and lists of them; a
datetime is ``{"$datetime": "<ISO 8601 in UTC>"}`` (graph properties cannot
hold maps, so the tag cannot clash with data). Every property is carried as
stored, vectors (``embedding``, float32 values) and search tokens
(``search_text``, ``user_key``) included, so the imported nodes are indexed as
they are written. ``Meta`` is not dumped: the schema setup that runs before an
import makes it from the header's ``embedding``.

An import reads the file twice. The first pass checks every line (labels,
edge types and their ends, counts against the header) and nothing is written
if one is wrong; the second writes in batches, merging on id, so importing a
file twice creates nothing new. See docs/dump.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippograph.errors import HippoError, InvalidInput
from hippograph.models import EdgeType

FORMAT = "hippograph-dump"
VERSION = 1
NODE_LABELS: tuple[str, ...] = ("User", "Session", "Message", "MemUnit", "Memory", "ApiKey", "Job")
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
)
# The labels whose outgoing edges an export reads, in dump order.
EDGE_START_LABELS: tuple[str, ...] = tuple(dict.fromkeys(kind[1] for kind in EDGE_KINDS))

_HEADER_KEYS = {"format", "version", "exported_at", "embedding", "counts"}
_NODE_KEYS = {"node", "props"}
_EDGE_KEYS = {"edge", "from", "from_label", "to", "to_label", "props"}
_DATETIME = "$datetime"


class ExportError(HippoError):
    """The graph holds something a dump cannot carry, or changed during the export."""

    code = "EXPORT"


@dataclass(frozen=True, slots=True)
class EmbeddingInfo:
    """The model the dumped vectors were made by."""

    model: str
    dimensions: int


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


# --- values ---------------------------------------------------------------------------


def encode_value(value: Any) -> Any:
    """A property value as JSON data; datetimes are tagged (they must be aware)."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise TypeError("a naive datetime cannot be dumped")
        return {_DATETIME: value.astimezone(UTC).isoformat()}
    if isinstance(value, list | tuple):
        return [encode_value(v) for v in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise TypeError(f"a {type(value).__name__} cannot be dumped")


def decode_value(raw: Any, where: str, *, in_list: bool = False) -> Any:
    """The property value that ``raw`` (JSON data) stands for; ``where`` names it in errors."""
    if isinstance(raw, dict):
        text = raw.get(_DATETIME)
        if set(raw) != {_DATETIME} or not isinstance(text, str):
            raise InvalidInput(f"{where}: an object value must be {{{_DATETIME!r}: <ISO time>}}")
        try:
            value = datetime.fromisoformat(text)
        except ValueError:
            raise InvalidInput(f"{where}: {text!r} is not an ISO 8601 time") from None
        if value.tzinfo is None:
            raise InvalidInput(f"{where}: {text!r} has no time zone offset")
        return value.astimezone(UTC)
    if isinstance(raw, list):
        if in_list:
            raise InvalidInput(f"{where}: lists of lists cannot be graph properties")
        return [decode_value(v, where, in_list=True) for v in raw]
    if raw is None and in_list:
        raise InvalidInput(f"{where}: a list property cannot hold null")
    return raw


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
            "embedding": {
                "model": header.embedding.model,
                "dimensions": header.embedding.dimensions,
            },
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


def _object(line: str, where: str) -> dict[str, Any]:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where}: not valid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: expected a JSON object, got {type(raw).__name__}")
    return raw


def _keys(raw: Mapping[str, Any], expected: set[str], where: str) -> None:
    if set(raw) != expected:
        raise InvalidInput(f"{where}: expected the keys {sorted(expected)}, got {sorted(raw)}")


def _counts(raw: Any, where: str) -> DumpCounts:
    counts = DumpCounts()
    if not isinstance(raw, dict) or set(raw) != {"nodes", "edges"}:
        raise InvalidInput(f"{where}: counts must be {{'nodes': {{...}}, 'edges': {{...}}}}")
    for part, known in (("nodes", counts.nodes), ("edges", counts.edges)):
        given = raw[part]
        if not isinstance(given, dict):
            raise InvalidInput(f"{where}: counts.{part} must be an object")
        for name, n in given.items():
            if name not in known:
                raise InvalidInput(f"{where}: counts.{part} names {name!r}; known: {list(known)}")
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise InvalidInput(f"{where}: counts.{part}.{name} must be a count")
            known[name] = n
    return counts


def parse_header(line: str, where: str) -> DumpHeader:
    """The header line, checked: this format, a version this code reads, every field."""
    raw = _object(line, where)
    if raw.get("format") != FORMAT:
        raise InvalidInput(f"{where}: not a HippoGraph dump (no {FORMAT!r} header)")
    if raw.get("version") != VERSION:
        raise InvalidInput(
            f"{where}: dump version {raw.get('version')!r} is not supported "
            f"(this HippoGraph reads version {VERSION})"
        )
    _keys(raw, _HEADER_KEYS, where)
    exported_at = decode_value({_DATETIME: raw["exported_at"]}, f"{where}: exported_at")
    embedding = raw["embedding"]
    if (
        not isinstance(embedding, dict)
        or not isinstance(embedding.get("model"), str)
        or not isinstance(embedding.get("dimensions"), int)
        or embedding["dimensions"] < 1
    ):
        raise InvalidInput(f"{where}: embedding must be {{'model': str, 'dimensions': int}}")
    info = EmbeddingInfo(embedding["model"], embedding["dimensions"])
    return DumpHeader(exported_at, info, _counts(raw["counts"], where))


def _label(raw: Any, where: str) -> str:
    if raw not in NODE_LABELS:
        raise InvalidInput(f"{where}: unknown label {raw!r}; a dump holds {list(NODE_LABELS)}")
    return str(raw)


def _props(raw: Any, where: str, dimensions: int) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: props must be an object")
    props = {key: decode_value(value, f"{where}: props.{key}") for key, value in raw.items()}
    vector = props.get("embedding")
    if vector is not None and (
        len(vector) != dimensions
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector)
    ):
        raise InvalidInput(f"{where}: props.embedding must be {dimensions} numbers")
    return props


def parse_record(line: str, where: str, dimensions: int) -> NodeRecord | EdgeRecord:
    """A node or edge line, checked on its own (its ends are checked by :func:`check_dump`)."""
    raw = _object(line, where)
    if "node" in raw:
        _keys(raw, _NODE_KEYS, where)
        node = NodeRecord(_label(raw["node"], where), _props(raw["props"], where, dimensions))
        node_id = node.props.get("id")
        if not isinstance(node_id, str) or not node_id:
            raise InvalidInput(f"{where}: props.id must be a non-empty string")
        return node
    if "edge" not in raw:
        raise InvalidInput(f"{where}: a line after the header is a node or an edge")
    _keys(raw, _EDGE_KEYS, where)
    kinds = {(t.value, start, end): (t, start, end) for t, start, end in EDGE_KINDS}
    key = (raw["edge"], _label(raw["from_label"], where), _label(raw["to_label"], where))
    if key not in kinds:
        if raw["edge"] not in {t.value for t in EdgeType}:
            known = [t.value for t in EdgeType]
            raise InvalidInput(f"{where}: unknown edge type {raw['edge']!r}; known: {known}")
        raise InvalidInput(f"{where}: no {key[0]} edge goes from a {key[1]} to a {key[2]}")
    if not isinstance(raw["from"], str) or not isinstance(raw["to"], str):
        raise InvalidInput(f"{where}: from and to must be node ids")
    return EdgeRecord(kinds[key], raw["from"], raw["to"], _props(raw["props"], where, dimensions))


@dataclass(frozen=True, slots=True)
class CheckedDump:
    """A dump file whose every line has been checked; only these are imported."""

    path: Path
    header: DumpHeader


def records(path: Path, header: DumpHeader) -> Iterator[tuple[str, NodeRecord | EdgeRecord]]:
    """Every node and edge of the file after the header, with where it is ("x.jsonl line 7")."""
    with path.open(encoding="utf-8") as handle:
        handle.readline()
        for number, line in enumerate(handle, start=2):
            if line.strip():
                where = f"{path.name} line {number}"
                yield where, parse_record(line, where, header.embedding.dimensions)


def check_dump(path: Path) -> CheckedDump:
    """Check the whole file: every line, each edge's ends among its nodes, the counts.

    Every error names the line it is on. Holds the ids of the file's nodes
    (about 100 bytes each) to check the edges against.
    """
    with path.open(encoding="utf-8") as handle:
        header = parse_header(handle.readline().lstrip("\ufeff"), f"{path.name} line 1")
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
