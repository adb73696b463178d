"""The graph server a benchmark runs on: ``--graph arcadedb|neo4j-5.26|neo4j-2026``.

ArcadeDB is the embedded default, in the benchmark's data directory. A Neo4j
release is started by :mod:`neo4j_launcher` with its store in the same data
directory, and stopped when the benchmark ends; its heap and page cache are
sized for 100,000 memories with their vectors. Every benchmark takes the
same option, so one run of ``bench.compare`` puts the servers side by side
on the same machine and the same data.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import machine
from hippograph.settings import GraphSettings
from neo4j_launcher.server import Neo4jServer

GRAPHS = ("arcadedb", "neo4j-5.26", "neo4j-2026")
# 100k memories hold about 300 MB of vectors as Neo4j stores them (doubles)
# and 150 MB more in each index: room for all of it, and for the heap's work.
NEO4J_HEAP = "3g"
NEO4J_PAGE_CACHE = "2g"


@dataclass(frozen=True)
class BenchGraph:
    """How a benchmark reaches its graph, in this process and from a child process."""

    name: str
    settings: GraphSettings
    env: dict[str, str] = field(default_factory=dict)
    version: str = ""

    def described(self) -> dict[str, str]:
        """The server and its version, as a report names them."""
        return {"server": self.name, "version": self.version}


def report_head(benchmark: str, graph: BenchGraph) -> dict[str, Any]:
    """The keys a per-server report starts with: its name, the machine, the graph."""
    return {"benchmark": benchmark, "machine": machine(), "graph": graph.described()}


def show_graph(report: Mapping[str, Any]) -> None:
    """The line a report's reader starts with: the graph server it ran on."""
    print(f"graph: {report['graph']['server']} {report['graph']['version']}")


def add_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--graph`` option every benchmark takes."""
    parser.add_argument(
        "--graph",
        choices=GRAPHS,
        default="arcadedb",
        help="the graph server: embedded ArcadeDB (default) or a Neo4j release",
    )


@contextmanager
def open_graph(name: str, data_dir: Path) -> Iterator[BenchGraph]:
    """The graph ``name`` with its data under ``data_dir``, for the benchmark's lifetime."""
    data_dir.mkdir(parents=True, exist_ok=True)
    if name == "arcadedb":
        yield BenchGraph(name, GraphSettings(data_dir=data_dir), version="embedded")
        return
    release = name.removeprefix("neo4j-")
    server = Neo4jServer(
        release,
        store=data_dir / "neo4j",
        heap=NEO4J_HEAP,
        page_cache=NEO4J_PAGE_CACHE,
        log_path=data_dir / "neo4j.log",
    ).start()
    try:
        settings = GraphSettings(
            server="neo4j",
            embedded=False,
            uri=server.uri,
            user=server.user,
            password=server.password,
            database="neo4j",
            data_dir=data_dir,
        )
        env = {
            "HIPPOGRAPH_GRAPH__SERVER": "neo4j",
            "HIPPOGRAPH_GRAPH__EMBEDDED": "false",
            "HIPPOGRAPH_GRAPH__URI": server.uri,
            "HIPPOGRAPH_GRAPH__USER": server.user,
            "HIPPOGRAPH_GRAPH__PASSWORD": server.password,
            "HIPPOGRAPH_GRAPH__DATABASE": "neo4j",
        }
        yield BenchGraph(name, settings, env, server.version)
    finally:
        server.stop()
