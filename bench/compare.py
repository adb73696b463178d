"""The servers side by side: each benchmark on each graph server, in one run.

Absolute times on a shared two-core machine move from run to run; figures
taken one after the other in the same run, on the same data, compare. This
runs each chosen benchmark once per server (``--graphs``), one child process
at a time, collects their JSON, writes it to ``--output`` and prints the
figures the issue of record names, in one table per benchmark.

    python -m bench.compare [--graphs arcadedb,neo4j-5.26,neo4j-2026] \\
        [--benches search,import,forget,provenance] [--memories 100000] [--output FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import machine, print_json
from bench.graphs import GRAPHS

Row = Callable[[dict[str, Any]], list[str]]


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


# name -> (module, extra arguments from the options, table header, row)
BENCHES: dict[str, tuple[str, Callable[[argparse.Namespace], list[str]], list[str], Row]] = {
    "search": (
        "bench.search_latency",
        lambda a: ["--memories", str(a.memories), "--searches", str(a.searches)],
        [
            "HYBRID+filters p50 / p95 ms: in-process",
            "in-process, restarted",
            "HTTP",
            "small user in-process",
            "small user HTTP",
            "small user top-10 recall vs exact",
            "index recall@10",
            "inserts/s",
        ],
        _search_row,
    ),
    "import": (
        "bench.import_rate",
        lambda a: [],
        ["messages", "messages/s", "whole command s", "again, messages/s"],
        _import_row,
    ),
    "forget": (
        "bench.forget",
        lambda a: ["--memories", str(a.memories)],
        ["memories", "first FUZZ pass s", "changed", "right after s", "next day s"],
        _forget_row,
    ),
    "provenance": (
        "bench.reflection",
        lambda a: ["--facts", str(a.memories), "--pending", "0"],
        ["memories", "depth-4 walk p50 / p95 ms", "nodes per walk"],
        _provenance_row,
    ),
}


def run_one(module: str, graph: str, extra: list[str]) -> dict[str, Any]:
    """One benchmark on one server, in a child process; its JSON."""
    command = [sys.executable, "-m", module, "--graph", graph, "--json", *extra]
    print(f"== {' '.join(command[1:])}", file=sys.stderr, flush=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}"}
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def table(name: str, results: dict[str, dict[str, Any]]) -> str:
    """A markdown table of one benchmark's figures, a row per server."""
    _, _, header, row = BENCHES[name]
    lines = [
        "| server | " + " | ".join(header) + " |",
        "|---" * (len(header) + 1) + "|",
    ]
    for graph, result in results.items():
        version = result.get("graph", {}).get("version", "")
        cells = ["failed: " + result["error"]] if "error" in result else row(result)
        lines.append(f"| {graph} {version} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    """Run, save, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", default=",".join(GRAPHS))
    parser.add_argument("--benches", default=",".join(BENCHES))
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--output", type=Path, default=None, help="all results as JSON")
    parser.add_argument("--json", action="store_true", help="print the JSON, not the tables")
    args = parser.parse_args()
    graphs = args.graphs.split(",")
    unknown = set(graphs) - set(GRAPHS) or set(args.benches.split(",")) - set(BENCHES)
    if unknown:
        parser.error(f"unknown: {', '.join(sorted(unknown))}")
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for name in args.benches.split(","):
        module, extra, _, _ = BENCHES[name]
        results[name] = {graph: run_one(module, graph, extra(args)) for graph in graphs}
        if args.output:  # after each benchmark: a long run keeps what it has measured
            args.output.write_text(json.dumps({"machine": machine(), "results": results}, indent=2))
    if args.json:
        print_json({"machine": machine(), "results": results})
        return
    for name, by_graph in results.items():
        print(f"\n### {name}\n\n{table(name, by_graph)}")


if __name__ == "__main__":
    main()
