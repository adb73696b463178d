"""Helpers shared by the benchmarks: data, timing, the machine, in-process runtimes."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from datetime import datetime

    from hippograph.models import Memory, MemoryKind

T = TypeVar("T")
R = TypeVar("R")

ROOT = Path(__file__).resolve().parents[1]
# The dev conversations are not part of the repository: a folder holding
# locomo/locomo_dev.json and realtalk/realtalk_dev.json, bench/data/ unless
# HIPPOGRAPH_DEV_DATA names another (bench/README.md).
DEV_DATA = Path(os.environ.get("HIPPOGRAPH_DEV_DATA") or ROOT / "bench" / "data")
LOCOMO = DEV_DATA / "locomo" / "locomo_dev.json"
REALTALK = DEV_DATA / "realtalk" / "realtalk_dev.json"

# The admin key of every service a benchmark starts, and the header that sends it.
ADMIN_KEY = "hg_bench-admin-key"
ADMIN_HEADERS: Mapping[str, str] = {"Authorization": f"Bearer {ADMIN_KEY}"}


# Every request a benchmark sends is a named operation of this file, which
# tests/test_contract.py validates against the schema with the project's others.
OPERATIONS = ROOT / "operations" / "bench.graphql"


@functools.cache
def _documents() -> dict[str, str]:
    from hippograph.graphql_documents import operations

    return {op.name: op.document for op in operations(OPERATIONS)}


def document(name: str) -> str:
    """The operation ``name`` of operations/bench.graphql, as it is sent."""
    return _documents()[name]


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gib = 0.0
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory_gib = round(pages / 2**30, 1)
    except (ValueError, OSError):
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": memory_gib,
        "python": platform.python_version(),
        "commit": _git_commit(),
    }


def serve_env(data_dir: Path, port: int, admin_key: str) -> dict[str, str]:
    """The environment of a benchmarked ``hippograph serve``: fresh data, a known admin key."""
    return {
        **os.environ,
        "HIPPOGRAPH_GRAPH__DATA_DIR": str(data_dir),
        "HIPPOGRAPH_API__PORT": str(port),
        "HIPPOGRAPH_API__ADMIN_KEY": admin_key,
        "HIPPOGRAPH_LOG_LEVEL": "warning",
    }


def _git_commit() -> str:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        return done.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    """p50/p95/p99/mean of latencies in milliseconds."""
    ordered = sorted(samples_ms)

    def at(q: float) -> float:
        index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
        return round(ordered[index], 2)

    return {
        "p50": at(0.50),
        "p95": at(0.95),
        "p99": at(0.99),
        "mean": round(statistics.fmean(ordered), 2),
        "n": len(ordered),
    }


@contextmanager
def stopwatch() -> Iterator[list[float]]:
    """``with stopwatch() as t:`` leaves the elapsed seconds in ``t[0]``."""
    box: list[float] = []
    started = time.perf_counter()
    try:
        yield box
    finally:
        box.append(time.perf_counter() - started)


async def timed_ms(
    call: Callable[[T], Awaitable[R]], items: Iterable[T], warmup: Iterable[T] = ()
) -> tuple[list[float], list[R]]:
    """``call`` on each of ``warmup`` untimed, then on each of ``items`` timed.

    Returns the milliseconds of each timed call and what each returned, in order.
    """
    for item in warmup:
        await call(item)
    samples: list[float] = []
    results: list[R] = []
    for item in items:
        started = time.perf_counter()
        result = await call(item)
        samples.append((time.perf_counter() - started) * 1000)
        results.append(result)
    return samples, results


def alternated(states: Sequence[T], round_: int) -> list[T]:
    """``states`` in order on even rounds, reversed on odd ones (A B, B A, A B…).

    A machine that warms up or slows down over a run then favours none of them.
    """
    return list(states) if round_ % 2 == 0 else list(reversed(states))


def dev_file(path: Path) -> Path:
    """``path``, or a stop that says where the dev conversations go when it is missing.

    They are not part of the repository, so a fresh clone has none: the
    benchmarks that read them say so, instead of a traceback.
    """
    if not path.is_file():
        raise SystemExit(
            f"no file {path}: the dev conversations are not part of the repository. Put "
            f"locomo/locomo_dev.json and realtalk/realtalk_dev.json in {ROOT / 'bench' / 'data'}, "
            "or name their folder in HIPPOGRAPH_DEV_DATA, or pass --data (bench/README.md)"
        )
    return path


def locomo_samples(path: Path = LOCOMO) -> list[dict[str, Any]]:
    """The LoCoMo samples of a file in the benchmark's format."""
    data: list[dict[str, Any]] = json.loads(dev_file(path).read_text())
    return data


def locomo_turns(path: Path = LOCOMO) -> list[tuple[str, str]]:
    """Every turn of every conversation: ``(<sample_id>/<dia_id>, <speaker> said, "<text>")``."""
    turns = []
    for sample in locomo_samples(path):
        conversation = sample["conversation"]
        for key in sorted(
            k for k in conversation if k.startswith("session_") and not k.endswith("date_time")
        ):
            for turn in conversation[key]:
                turns.append(
                    (
                        f"{sample['sample_id']}/{turn['dia_id']}",
                        f'{turn["speaker"]} said, "{turn["text"]}"',
                    )
                )
    return turns


def locomo_turn_texts(path: Path = LOCOMO) -> list[str]:
    """Every turn of every conversation as ``<speaker> said, "<text>"``."""
    return [text for _, text in locomo_turns(path)]


def locomo_questions(path: Path = LOCOMO) -> list[str]:
    """Every question of the file."""
    return [qa["question"] for sample in locomo_samples(path) for qa in sample["qa"]]


def locomo_evidence(path: Path = LOCOMO) -> list[tuple[str, list[str]]]:
    """Every question with its evidence, as the turn keys of :func:`locomo_turns`."""
    from hippograph.importers.locomo import load_locomo

    return [
        (question.question, [f"{conversation.sample_id}/{dia}" for dia in question.evidence])
        for conversation in load_locomo(dev_file(path))
        for question in conversation.questions
    ]


def memory_at(
    user: str, kind: MemoryKind, content: str, importance: float, at: datetime, **fields: Any
) -> Memory:
    """A memory of ``user`` made and last read at ``at``.

    ``fields`` sets any other field of it; its ``id`` is a new one of that time
    unless they name one.
    """
    from hippograph.ids import IdKind, new_id
    from hippograph.models import Memory

    if "id" not in fields:
        fields["id"] = new_id(IdKind.MEMORY, at)
    return Memory(
        user_id=user,
        kind=kind,
        content=content,
        importance=importance,
        created_at=at,
        last_accessed_at=at,
        **fields,
    )


CACHE = ROOT / "bench" / ".cache"


async def embed_cached(embed: Any, texts: list[str], name: str) -> list[list[float]]:
    """Embeddings of ``texts``, computed once and kept under bench/.cache.

    Encoding 100,000 texts takes many minutes on two cores; the benchmarks
    measure the graph, so repeated runs reuse the vectors (same texts, same
    model: ``name`` names the model, the file name carries a hash of the texts).
    """
    import hashlib

    import numpy as np

    digest = hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"{name}-{digest}.npy"
    if path.exists():
        cached: list[list[float]] = np.load(path).tolist()
        return cached
    vectors: list[list[float]] = []
    for start in range(0, len(texts), 1000):
        vectors.extend(await embed(texts[start : start + 1000]))
        print(f"  embedded {len(vectors)}/{len(texts)}", file=sys.stderr, end="\r")
    print(file=sys.stderr)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, np.asarray(vectors, dtype=np.float32))
    return vectors


def print_json(data: dict[str, Any]) -> None:
    """One JSON object on stdout."""
    print(json.dumps(data, indent=2, ensure_ascii=False))


Report = dict[str, Any]
Measure = Callable[[argparse.Namespace], Report | Coroutine[Any, Any, Report]]
Show = Callable[[Report, argparse.Namespace], None]


def report_cli(parser: argparse.ArgumentParser, measure: Measure, show: Show) -> None:
    """A benchmark's command line: parse the arguments, measure, print the report.

    ``--json`` prints the whole report as one JSON object, which is what
    ``bench.compare`` reads; without it ``show`` prints the figures for a
    reader. ``measure`` may return a coroutine: it then runs in a new event loop.
    """
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = parser.parse_args()
    outcome = measure(args)
    report = outcome if isinstance(outcome, dict) else asyncio.run(outcome)
    if args.json:
        print_json(report)
    else:
        show(report, args)
