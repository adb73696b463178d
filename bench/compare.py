"""The servers side by side: each benchmark on each graph server, in one run.

Absolute times on a shared two-core machine move from run to run; figures
taken one after the other in the same run, on the same data, compare. This
runs each chosen benchmark once per server (``--graphs``), one child process
at a time, collects their JSON, writes it to ``--output`` and prints the
figures ``bench/registry.py`` names for it, in one table per benchmark.

    python -m bench.compare [--graphs arcadedb,neo4j-5.26,neo4j-2026] \\
        [--benches search,import,forget,provenance,ingest] [--memories 100000] [--output FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.common import machine, print_json
from bench.graphs import GRAPHS
from bench.registry import Figures, compared


def run_one(module: str, graph: str, extra: list[str]) -> dict[str, Any]:
    """One benchmark on one server, in a child process; its JSON."""
    command = [sys.executable, "-m", module, "--graph", graph, "--json", *extra]
    print(f"== {' '.join(command[1:])}", file=sys.stderr, flush=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}"}
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def table(figures: Figures, results: dict[str, dict[str, Any]]) -> str:
    """A markdown table of one benchmark's figures, a row per server."""
    header, row = figures.header, figures.row
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
    benches = compared()
    parser.add_argument("--benches", default=",".join(benches))
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--output", type=Path, default=None, help="all results as JSON")
    parser.add_argument("--json", action="store_true", help="print the JSON, not the tables")
    args = parser.parse_args()
    graphs = args.graphs.split(",")
    unknown = set(graphs) - set(GRAPHS) or set(args.benches.split(",")) - set(benches)
    if unknown:
        parser.error(f"unknown: {', '.join(sorted(unknown))}")
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for name in args.benches.split(","):
        bench = benches[name]
        assert bench.figures is not None  # compared() keeps only those with figures
        extra = bench.figures.options(args)
        results[name] = {graph: run_one(bench.module, graph, extra) for graph in graphs}
        if args.output:  # after each benchmark: a long run keeps what it has measured
            args.output.write_text(json.dumps({"machine": machine(), "results": results}, indent=2))
    if args.json:
        print_json({"machine": machine(), "results": results})
        return
    for name, by_graph in results.items():
        figures = benches[name].figures
        assert figures is not None
        print(f"\n### {name}\n\n{table(figures, by_graph)}")


if __name__ == "__main__":
    main()
