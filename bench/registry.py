"""The regression benchmarks: what each measures, how to run it, and which figures count.

A regression benchmark is run again after a change to see that nothing got
worse; its figures are what an issue's closing note quotes. The A/B
experiments that decided something once live in ``bench/experiments/`` and
their results in ``docs/decisions/``. ``bench.compare`` runs the entries that
take ``--graph`` on every server side by side and prints their ``figures``;
``tests/unit/test_bench_registry.py`` keeps this list and the folder in step.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Row = Callable[[dict[str, Any]], list[str]]
Options = Callable[[argparse.Namespace], list[str]]


@dataclass(frozen=True, slots=True)
class Figures:
    """The table ``bench.compare`` prints for a benchmark: a header and a row per server."""

    header: tuple[str, ...]
    row: Row
    options: Options  # the compare run's options as the benchmark's own arguments


@dataclass(frozen=True, slots=True)
class Bench:
    """One regression benchmark."""

    name: str
    module: str  # run as ``python -m <module>``
    measures: str
    per_server: bool  # takes ``--graph`` and ``--json``
    figures: Figures | None = None  # None: not in bench.compare's tables


def _p(latency: dict[str, Any]) -> str:
    return f"{latency['p50']} / {latency['p95']}"


def _search_row(r: dict[str, Any]) -> list[str]:
    local, http = r["in_process"], r["http"]
    small = local.get("small_user", {})
    return [
        _p(local["hybrid+filters"]["latency_ms"]),
        _p(r["in_process_restarted"]["hybrid+filters"]["latency_ms"]),
        _p(http["hybrid+filters"]["latency_ms"]),
        _p(small["hybrid+filters"]["latency_ms"]) if small else "-",
        _p(http["small_user"]["hybrid+filters"]["latency_ms"]) if small else "-",
        str(small.get("served_recall_at_10_vs_exact", "-")),
        str(local["vector"]["index_recall_at_10_vs_exact"]),
        str(r["insert"]["writes_per_s"]),
    ]


def _import_row(r: dict[str, Any]) -> list[str]:
    first = r["first"]
    return [
        str(first["messages"]),
        str(first["messages_per_s"]),
        str(first["command_wall_s"]),
        str(r["again"]["messages_per_s"]),
    ]


def _forget_row(r: dict[str, Any]) -> list[str]:
    return [
        str(r["setup"]["memories"]),
        str(r["first_pass"]["seconds"]),
        str(r["first_pass"]["changed"]),
        str(r["right_after"]["seconds"]),
        str(r["next_day"]["seconds"]),
    ]


def _provenance_row(r: dict[str, Any]) -> list[str]:
    walk = r["provenance_depth4"]
    return [str(r["memories"]), _p(walk["latency_ms"]), str(walk["nodes_per_walk"])]


def _ingest_row(r: dict[str, Any]) -> list[str]:
    first, steady = r["first_pass_after_start"], r["steady_state"]
    return [
        str(steady["messages"]),
        str(first["messages_per_s"]),
        str(steady["messages_per_s"]),
        str(steady["process_cpu_s"]),
    ]


REGISTRY: tuple[Bench, ...] = (
    Bench(
        "search",
        "bench.search_latency",
        "bulk insert rate; search p50/p95 per method in-process (first process and "
        "after a restart) and over HTTP; the index's recall@10 against an exact scan; "
        "LoCoMo recall among the loaded memories (bench/scale_recall.py)",
        True,
        Figures(
            (
                "HYBRID+filters p50 / p95 ms: in-process",
                "in-process, restarted",
                "HTTP",
                "small user in-process",
                "small user HTTP",
                "small user top-10 recall vs exact",
                "index recall@10",
                "inserts/s",
            ),
            _search_row,
            lambda a: ["--memories", str(a.memories), "--searches", str(a.searches)],
        ),
    ),
    Bench(
        "import",
        "bench.import_rate",
        "`hippograph import` of the LoCoMo dev file, as a user runs it: messages/s",
        True,
        Figures(
            ("messages", "messages/s", "whole command s", "again, messages/s"),
            _import_row,
            lambda a: [],
        ),
    ),
    Bench(
        "forget",
        "bench.forget",
        "a FUZZ pass over one user's memories, a second right after, one a day later",
        True,
        Figures(
            ("memories", "first FUZZ pass s", "changed", "right after s", "next day s"),
            _forget_row,
            lambda a: ["--memories", str(a.memories)],
        ),
    ),
    Bench(
        "provenance",
        "bench.reflection",
        "provenance depth-4 walks in a large graph; one reflect run over many facts",
        True,
        Figures(
            ("memories", "depth-4 walk p50 / p95 ms", "nodes per walk"),
            _provenance_row,
            lambda a: ["--facts", str(a.memories), "--pending", "0"],
        ),
    ),
    Bench(
        "ingest",
        "bench.ingest",
        "memorize throughput on the LoCoMo dev turns (one call per session), first "
        "pass after start and steady state, and the time per port",
        True,
        Figures(
            ("messages", "first pass messages/s", "steady messages/s", "steady CPU s"),
            _ingest_row,
            lambda a: [],
        ),
    ),
    Bench(
        "entity-walk",
        "bench.entity_walk",
        "the entity walk alone at scale: latency per question, seeds and memories read",
        True,
    ),
    Bench(
        "pressure",
        "bench.pressure",
        "search p95 idle and while another client imports",
        True,
    ),
    Bench(
        "soak",
        "bench.soak",
        "mixed tenants for minutes on loopback: errors, p95 drift, RSS growth",
        True,
    ),
    Bench(
        "recall",
        "bench.ablation",
        "recall@k per question category on both dev files, each retrieval signal off in turn",
        False,
    ),
    Bench(
        "locomo",
        "bench.locomo",
        "LoCoMo recall@k per method at turn, MemUnit or memory granularity",
        False,
    ),
    Bench(
        "memory-quality",
        "bench.memory_quality",
        "what memorize keeps: memories per message, near-duplicates, restatements, "
        "attribution, repeats and reflections in the top 5",
        False,
    ),
    Bench(
        "llm-quality",
        "bench.llm_quality",
        "a local model beside the offline extractor on the same turns",
        False,
    ),
    Bench(
        "app-start",
        "bench.app_start",
        "one app's start and stop in process, piece by piece (what each API test pays)",
        False,
    ),
    Bench(
        "cold-start",
        "bench.cold_start",
        "`hippograph serve` from spawn to the first answered search",
        False,
    ),
    Bench(
        "serve-rss",
        "bench.serve_rss",
        "`hippograph serve` RSS once ready and after it memorized and searched",
        False,
    ),
    Bench(
        "load",
        "bench.load",
        "N clients over HTTP mixing memorize, search and provenance: throughput, errors, p95",
        False,
    ),
    Bench(
        "surfaces",
        "bench.surfaces",
        "a search through GraphQL, the Python client and MCP; event delivery",
        False,
    ),
    Bench(
        "poison",
        "bench.poison",
        "one tenant's unstorable text against another tenant's requests",
        False,
    ),
)

# Helpers the benchmarks share, not benchmarks themselves.
HELPERS = frozenset(
    {"common", "compare", "graphs", "local_llm", "registry", "scale_recall", "stack"}
)


def by_name() -> dict[str, Bench]:
    """The registry keyed by name."""
    return {b.name: b for b in REGISTRY}


def compared() -> dict[str, Bench]:
    """The benchmarks ``bench.compare`` runs per server and tabulates."""
    return {b.name: b for b in REGISTRY if b.per_server and b.figures is not None}
