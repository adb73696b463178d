"""`hippograph export` and `hippograph import` of a dump: a store moved whole, and refused files."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graph.dump import EDGE_PAGES, NODE_PAGES, WRITE_EDGES, WRITE_NODES
from graph.store import GraphStore
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.adapters.model_catalog import find_model
from hippograph.cli import build_parser, main
from hippograph.clock import utc_now
from hippograph.dump import (
    EDGE_KINDS,
    EDGE_START_LABELS,
    NODE_LABELS,
    DumpCounts,
    DumpHeader,
    EdgeRecord,
    EmbeddingInfo,
    NodeRecord,
    check_dump,
    edge_line,
    header_line,
    looks_like_dump,
    node_line,
)
from hippograph.dump_values import decode_value, encode_value
from hippograph.errors import InvalidInput
from hippograph.jobs import JobStatus
from hippograph.models import EdgeType
from hippograph.runtime import Runtime
from hippograph.scoring import SearchMethod
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memories import NewMemory
from hippograph.services.memorize import MemorizeRequest
from hippograph.services.memory_ops import MemoryOp, MemoryOpKind
from hippograph.services.messages import MessageInput
from hippograph.services.search import SearchRequest
from hippograph.settings import SearchSettings, Settings
from tests.cli.conftest import TALK, write_jsonl
from tests.conftest import DIMENSIONS, MODEL
from tests.graphs import GraphBackend, TestDatabase

FACTS = [
    ("Alice drinks two flat whites every morning", 0.8),
    ("Alice loves espresso from the cafe near her office", 0.8),
    ("Alice grinds her own coffee beans at home", 0.7),
    ("Alice goes rock climbing every Saturday", 0.8),
    ("Alice is training to lead climb outdoors in the Alps", 0.9),
    ("Alice bought new climbing shoes last week", 0.7),
]
QUERIES = ["coffee in the morning", "climbing in the Alps", "Lisbon trip", "Portuguese"]


def _settings(graph_db: TestDatabase, data_dir: Path) -> Settings:
    # Every search goes through the vector index (no exact scan), so the
    # comparison shows that the imported nodes are in the index.
    return Settings(graph=graph_db.settings(data_dir), search=SearchSettings(exact_scan_max=0))


@pytest.fixture
def settings(graph_db: TestDatabase, tmp_path: Path) -> Settings:
    """The source runtime (tests/cli/conftest.py) searches through the indexes only."""
    return _settings(graph_db, tmp_path)


@pytest.fixture
def other_database(graph_backend: GraphBackend) -> Iterator[TestDatabase]:
    """A second empty database beside the test's own (on Neo4j, a second server)."""
    with graph_backend.database() as database:
        yield database


async def _fill(runtime: Runtime) -> None:
    """Users, a memorized conversation, agent memories, a correction, a reflection, keys."""
    services = runtime.services
    await services.users.create_user(SETTINGS_ADMIN, "alice", "Alice Moreau")
    await services.users.create_user(SETTINGS_ADMIN, "bob", "Bob")
    session = await services.users.create_session(SETTINGS_ADMIN, "alice", "trip")
    messages = tuple(MessageInput(speaker=s, content=c) for s, c in TALK)
    await services.memorize.memorize(
        SETTINGS_ADMIN,
        MemorizeRequest(user_ids=("alice",), session_id=session.id, messages=messages),
    )
    added = await services.memory_ops.apply(
        SETTINGS_ADMIN,
        "alice",
        [MemoryOp(MemoryOpKind.ADD, content=c, importance=w) for c, w in FACTS],
    )
    correction = "Alice drinks three flat whites every morning"
    await services.memory_ops.apply(
        SETTINGS_ADMIN,
        "alice",
        [MemoryOp(MemoryOpKind.UPDATE, id=added[0].memory_id, content=correction)],
    )
    await services.memories.add_memory(
        SETTINGS_ADMIN,
        NewMemory(
            user_id="alice",
            content="Alice cannot start a day without coffee",
            derived_from=(str(added[1].memory_id),),
            domain="habits",
            verified=True,
            valid_from=datetime(2024, 1, 1, tzinfo=UTC),
        ),
    )
    job = await services.reflection.request(SETTINGS_ADMIN, "alice", True)
    deadline = time.monotonic() + 60
    while job.status not in {JobStatus.SUCCEEDED, JobStatus.FAILED}:
        assert time.monotonic() < deadline, job
        await asyncio.sleep(0.05)
        job = await services.jobs.get_job(SETTINGS_ADMIN, job.id)
    assert job.status is JobStatus.SUCCEEDED, job
    assert job.counts["reflections"] >= 1, job
    await services.keys.issue("bob's agent", False, ["bob"])


async def _export(store: GraphStore, path: Path) -> DumpCounts:
    with path.open("w", encoding="utf-8") as out:
        return await store.dump.export(out, utc_now(), page_size=7)  # pages end mid-label


def _lines(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The header without its time, and every other line as written."""
    header, *rest = path.read_text(encoding="utf-8").splitlines()
    parsed: dict[str, Any] = json.loads(header)
    del parsed["exported_at"]
    return parsed, rest


async def _hit_ids(runtime: Runtime, method: SearchMethod) -> list[list[str]]:
    found = []
    for query in QUERIES:
        request = SearchRequest(user_id="alice", query=query, method=method, touch=False)
        result = await runtime.services.search.search(SETTINGS_ADMIN, request)
        found.append([hit.id for hit in result.hits])
    return found


async def test_a_store_moves_whole_through_a_dump_and_a_second_import_adds_nothing(
    runtime: Runtime,
    embedder: SentenceTransformerEmbedder,
    other_database: TestDatabase,
    tmp_path: Path,
) -> None:
    await _fill(runtime)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    counts = await _export(runtime.connection.store, first)
    assert counts.nodes["Message"] == len(TALK)
    assert all(counts.nodes[label] > 0 for label in NODE_LABELS), counts
    kinds = {
        (line["edge"], line["from_label"], line["to_label"])
        for line in map(json.loads, _lines(first)[1])
        if "edge" in line
    }
    assert kinds == {(t.value, start, end) for t, start, end in EDGE_KINDS}  # every kind made
    assert looks_like_dump(first)

    checked = check_dump(first)
    assert checked.header.counts == counts
    stored = await runtime.connection.store.vectors()
    assert stored is not None
    precision = stored.vectors.precision  # the runtime's own, carried by the dump
    assert checked.header.embedding == EmbeddingInfo(MODEL, DIMENSIONS, precision)
    target = await other_database.connect(tmp_path)
    try:
        store = target.store
        # As `hippograph import` sets a store up: from the dump's header.
        await store.setup(model=MODEL, dimensions=DIMENSIONS, precision=precision)
        seen: list[int] = []
        report = await store.dump.load(checked, batch_size=5, progress=seen.append)
        assert sum(seen) == counts.total
        assert (report.nodes_created, report.nodes_existing) == (sum(counts.nodes.values()), 0)
        assert (report.edges_created, report.edges_existing) == (sum(counts.edges.values()), 0)

        again = await store.dump.load(checked)
        assert (again.nodes_created, again.edges_created) == (0, 0)
        assert (again.nodes_existing, again.edges_existing) == (
            sum(counts.nodes.values()),
            sum(counts.edges.values()),
        )
        assert await _export(store, second) == counts
    finally:
        await target.close()
    assert _lines(second) == _lines(first)

    # The imported store serves searches through its indexes as the source did.
    moved = await Runtime.start(
        _settings(other_database, tmp_path / "moved"), embedder=embedder, **other_database.start
    )
    try:
        for method in (SearchMethod.VECTOR, SearchMethod.KEYWORD, SearchMethod.HYBRID):
            expected = await _hit_ids(runtime, method)
            assert all(expected), (method, expected)
            assert await _hit_ids(moved, method) == expected, method
        # The source's keys came along: the moved store made no admin key of its own.
        assert len(await moved.services.keys.list_keys()) == 2
    finally:
        await moved.stop()


def test_every_label_and_edge_kind_has_its_queries() -> None:
    assert set(NODE_PAGES) == set(WRITE_NODES) == set(NODE_LABELS)
    assert set(WRITE_EDGES) == set(EDGE_KINDS)
    assert set(EDGE_PAGES) == set(EDGE_START_LABELS)
    assert {kind[0] for kind in EDGE_KINDS} == set(EdgeType)


def test_values_round_trip_with_datetimes_tagged() -> None:
    at = datetime(2024, 5, 1, 8, 30, 15, 123456, tzinfo=UTC)
    values = ["text", 3, 0.1, True, None, ["a", "b"], [0.5, -1.25], at, [at]]
    encoded = json.loads(json.dumps([encode_value(v) for v in values]))
    assert encoded[7] == {"$datetime": "2024-05-01T08:30:15.123456+00:00"}
    decoded = [decode_value(v) for v in encoded]
    assert decoded == values
    assert [type(v) for v in decoded] == [type(v) for v in values]
    with pytest.raises(TypeError, match="naive"):
        encode_value(datetime(2024, 5, 1))


# --- a small dump, written with the format's own functions ------------------------------

AT = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
VECTOR = [0.5, -0.25] * (DIMENSIONS // 2)  # float32-exact, so a round trip keeps every digit


def _small_records() -> list[NodeRecord | EdgeRecord]:
    memory = {
        "id": "mem_1",
        "user_id": "ann",
        "kind": "semantic",
        "content": "Ann paints",
        "importance": 0.5,
        "created_at": AT,
        "last_accessed_at": AT,
        "access_count": 0,
        "verified": False,
        "embedding": VECTOR,
        "search_text": "ann paints",
        "user_key": "u616e6e",
    }
    return [
        NodeRecord("User", {"id": "ann", "name": "Ann", "created_at": AT}),
        NodeRecord("Session", {"id": "ses_1", "user_id": "ann", "title": "", "started_at": AT}),
        NodeRecord(
            "Message",
            {"id": "msg_1", "session_id": "ses_1", "user_id": "ann", "speaker": "Ann"}
            | {"role": "user", "content": "I paint", "ts": AT, "seq": 1},
        ),
        NodeRecord("Memory", memory),
        EdgeRecord((EdgeType.HAS_SESSION, "User", "Session"), "ann", "ses_1", {}),
        EdgeRecord((EdgeType.HAS_MESSAGE, "Session", "Message"), "ses_1", "msg_1", {}),
        EdgeRecord((EdgeType.DERIVED_FROM, "Memory", "Message"), "mem_1", "msg_1", {}),
    ]


def _small_dump(path: Path) -> Path:
    records = _small_records()
    counts = DumpCounts()
    for record in records:
        if isinstance(record, NodeRecord):
            counts.nodes[record.label] += 1
        else:
            counts.edges[record.kind[0].value] += 1
    header = DumpHeader(AT, EmbeddingInfo(MODEL, DIMENSIONS), counts)
    lines = [node_line(r) if isinstance(r, NodeRecord) else edge_line(r) for r in records]
    path.write_text(header_line(header) + "".join(lines), encoding="utf-8")
    return path


def _edit(path: Path, number: int, change: Callable[[dict[str, Any]], object]) -> Path:
    """The dump with line ``number`` (1-based) changed in place by ``change``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    raw = json.loads(lines[number - 1])
    change(raw)
    lines[number - 1] = json.dumps(raw)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _set(number: int, *keys: str, **fields: object) -> Callable[[Path], Path]:
    """A breakage: ``fields`` set on line ``number`` (1-based), in the object at ``keys``."""

    def change(raw: dict[str, Any]) -> None:
        for key in keys:
            raw = raw[key]
        raw.update(fields)

    return lambda path: _edit(path, number, change)


def _replace_line(path: Path, number: int, text: str) -> Path:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _replace_bytes(path: Path, old: bytes, new: bytes) -> Path:
    path.write_bytes(path.read_bytes().replace(old, new, 1))
    return path


def _drop_last(path: Path) -> Path:
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]), encoding="utf-8")
    return path


BROKEN: dict[str, tuple[Callable[[Path], Path], str]] = {
    "bad_json": (
        lambda p: _replace_line(p, 3, '{"node": "Session", "props": {'),
        "line 3: not valid JSON",
    ),
    "unknown_label": (_set(4, node="Robot"), "line 4: node: unknown label 'Robot'"),
    "unknown_edge_type": (_set(6, edge="LIKES"), "line 6: edge: unknown edge type 'LIKES'"),
    "edge_between_wrong_labels": (
        _set(6, edge="SUPERSEDES"),
        "line 6: no SUPERSEDES edge goes from a User to a Session",
    ),
    "edge_to_a_missing_node": (
        _set(8, to="msg_gone"),
        "line 8: the edge's Message 'msg_gone' is not in the dump",
    ),
    "wrong_version": (_set(1, version=2), "line 1: dump version 2 is not supported"),
    "not_a_dump": (
        lambda p: _replace_line(p, 1, '{"user_id": "ann", "messages": []}'),
        "line 1: not a HippoGraph dump",
    ),
    "naive_time": (
        _set(2, "props", created_at={"$datetime": "2024-05-01"}),
        "line 2: props.created_at: '2024-05-01' has no time zone offset",
    ),
    "short_vector": (
        _set(5, "props", embedding=[0.5]),
        f"line 5: props.embedding must be {DIMENSIONS} numbers",
    ),
    "node_after_edges": (
        lambda p: _replace_line(p, 8, p.read_text().splitlines()[2]),
        "line 8: a node after the edges",
    ),
    "cut_short": (_drop_last, "(is it cut short?)"),
    # Refusals the hand-written checks missed: a bool taken for a number,
    # keys nobody reads, and values that crashed the check instead.
    "version_true": (_set(1, version=True), "line 1: dump version True is not supported"),
    "dimensions_true": (
        _set(1, "embedding", dimensions=True),
        "line 1: embedding.dimensions: Input should be a valid integer",
    ),
    "unknown_embedding_key": (
        _set(1, "embedding", normalized=True),
        "line 1: embedding.normalized: Extra inputs are not permitted",
    ),
    "negative_count": (
        _set(1, "counts", "nodes", User=-1),
        "line 1: counts.nodes.User: Input should be greater than or equal to 0",
    ),
    "vector_not_a_list": (
        _set(5, "props", embedding=5),
        f"line 5: props.embedding must be {DIMENSIONS} numbers",
    ),
    "time_past_the_last_utc_time": (
        _set(2, "props", created_at={"$datetime": "9999-12-31T23:59:59-14:00"}),
        "line 2: props.created_at: '9999-12-31T23:59:59-14:00' is out of range once moved to UTC",
    ),
    # Refusals no case reached before: a node twice, a node without an id, a
    # line that is neither, and property values the graph cannot hold.
    "node_twice": (
        lambda p: _replace_line(p, 4, p.read_text().splitlines()[2]),
        "line 4: Session 'ses_1' appears twice",
    ),
    "node_without_id": (
        lambda p: _edit(p, 3, lambda r: r["props"].pop("id")),
        "line 3: props.id must be a non-empty string",
    ),
    "neither_node_nor_edge": (
        lambda p: _replace_line(p, 3, '{"props": {"id": "ses_1"}}'),
        "line 3: a line after the header is a node or an edge",
    ),
    "time_not_a_string": (
        _set(2, "props", created_at={"$datetime": 7}),
        "line 2: props.created_at: a time must be an ISO 8601 string, not int",
    ),
    "time_not_a_time": (
        _set(2, "props", created_at={"$datetime": "soon"}),
        "line 2: props.created_at: 'soon' is not an ISO 8601 time",
    ),
    "object_value": (
        _set(2, "props", name={"first": "Ann"}),
        "line 2: props.name: an object value must be {'$datetime': <ISO time>}",
    ),
    "list_of_lists": (
        _set(2, "props", tags=[["a"]]),
        "line 2: props.tags: lists of lists cannot be graph properties",
    ),
    "null_in_a_list": (
        _set(2, "props", tags=["a", None]),
        "line 2: props.tags: a list property cannot hold null",
    ),
    "not_utf8": (lambda p: _replace_bytes(p, b'"Ann"', b'"\xe9"'), "line 2: not UTF-8 text"),
    "edge_end_not_an_id": (_set(6, **{"from": 7}), "line 6: from: Input should be a valid string"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_dump_is_refused_naming_the_line(case: str, tmp_path: Path) -> None:
    # The small dump's lines: 1 header, 2 User, 3 Session, 4 Message, 5 Memory, 6-8 edges.
    assert check_dump(_small_dump(tmp_path / "ok.jsonl")).header.counts.total == 7
    damage, message = BROKEN[case]
    path = damage(_small_dump(tmp_path / "broken.jsonl"))
    with pytest.raises(InvalidInput) as refused:
        check_dump(path)
    assert message in refused.value.message
    assert refused.value.message.startswith("broken.jsonl")


def test_a_header_without_a_precision_is_a_float32_dumps(tmp_path: Path) -> None:
    path = _small_dump(tmp_path / "old.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    assert header["embedding"].pop("precision") == "float32"
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    assert check_dump(path).header.embedding == EmbeddingInfo(MODEL, DIMENSIONS, "float32")


def test_only_a_dump_header_is_taken_for_a_dump(tmp_path: Path) -> None:
    assert looks_like_dump(_small_dump(tmp_path / "dump.jsonl"))
    conversations = write_jsonl(tmp_path / "chats.jsonl", [{"user_id": "a", "messages": []}])
    assert not looks_like_dump(conversations)
    args = build_parser().parse_args(["export", "-", "--no-progress"])
    assert (args.file, args.no_progress) == ("-", True)
    assert build_parser().parse_args(["import", "x.jsonl", "--format", "dump"]).format == "dump"


@pytest.mark.usefixtures("cli_environment")
def test_the_commands_import_and_export_a_dump(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = _edit(_small_dump(tmp_path / "broken.jsonl"), 4, lambda r: r.update(node="Robot"))
    assert main(["import", str(broken), "--no-progress"]) == 2
    assert "broken.jsonl line 4: node: unknown label 'Robot'" in capsys.readouterr().err
    # Nothing was written, not even the schema: the database cannot be exported.
    assert main(["export", str(tmp_path / "nothing.jsonl"), "--no-progress"]) == 2
    assert "never set up" in capsys.readouterr().err
    assert not (tmp_path / "nothing.jsonl").exists()
    assert not (tmp_path / "nothing.jsonl.partial").exists()

    dump = _small_dump(tmp_path / "small.jsonl")
    assert main(["import", str(dump), "--only", "c1", "--no-progress"]) == 2
    assert "small.jsonl is a dump, loaded whole: --only picks" in capsys.readouterr().err
    assert main(["import", str(dump), "--no-progress"]) == 0
    assert "4 nodes created (0 existed), 3 edges created (0 existed)" in capsys.readouterr().out
    assert main(["import", str(dump), "--format", "dump", "--no-progress"]) == 0
    assert "0 nodes created (4 existed), 0 edges created (3 existed)" in capsys.readouterr().out
    # A dump of a graph recorded under an older name of the model, as serve takes it.
    model = find_model(MODEL)
    assert model is not None
    older = _edit(
        _small_dump(tmp_path / "older.jsonl"),
        1,
        lambda r: r["embedding"].update(model=model.aliases[0]),
    )
    assert main(["import", str(older), "--no-progress"]) == 0
    assert "0 nodes created (4 existed)" in capsys.readouterr().out
    # The model set under another of its names, in another case: the same model.
    for name in (model.aliases[0], MODEL.upper()):
        with pytest.MonkeyPatch.context() as env:
            env.setenv("HIPPOGRAPH_EMBEDDING__MODEL", name)
            assert main(["import", str(dump), "--no-progress"]) == 0, capsys.readouterr().err
            assert "0 nodes created (4 existed)" in capsys.readouterr().out
    # A header whose vectors cannot be the model's.
    odd = _edit(
        _small_dump(tmp_path / "odd.jsonl"), 1, lambda r: r["embedding"].update(dimensions=8)
    )
    _edit(odd, 5, lambda r: r["props"].update(embedding=[0.125] * 8))
    assert main(["import", str(odd), "--no-progress"]) == 2
    assert f"{model.name}'s have {model.dimensions}" in capsys.readouterr().err

    again = tmp_path / "again.jsonl"
    assert main(["export", str(again), "--no-progress"]) == 0
    assert "exported 4 nodes and 3 edges" in capsys.readouterr().err
    assert _lines(again) == _lines(dump)
    assert main(["export", "-", "--no-progress"]) == 0
    assert _lines(again)[1] == capsys.readouterr().out.splitlines()[1:]
