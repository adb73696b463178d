"""`hippograph import` of the LoCoMo dev file, as a user runs it: messages per second.

Runs the command itself in a child process (``--no-progress``) on a fresh
graph (``--graph``: the embedded ArcadeDB in a fresh data directory, or a
Neo4j release started for the run, see ``bench.graphs``), and reads the rate
it prints: the messages it memorized over the time its import took, the
model already loaded and the schema set up. The wall-clock time of the
whole command (start-up included) is reported beside it. Then the same file
again: every message exists, nothing is written, and that rate is reported
too.

    python -m bench.import_rate [--file bench/data/locomo/locomo_dev.json] \\
        [--graph arcadedb|neo4j-5.26|neo4j-2026] [--json]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import graphs
from bench.common import LOCOMO, Report, dev_file, report_cli
from bench.graphs import open_graph, report_head

_SUMMARY = re.compile(
    r"(?P<messages>\d+) messages \((?P<new>\d+) new, (?P<existing>\d+) existing\), "
    r"(?P<memunits>\d+) memunits, (?P<memories>\d+) memories in "
    r"(?P<seconds>[\d.]+) s \((?P<rate>[\d.]+) messages/s\)"
)


def import_once(file: Path, env: dict[str, str]) -> dict[str, Any]:
    """One ``hippograph import FILE``: its own figures and the command's wall-clock time."""
    hippograph = Path(sys.executable).parent / "hippograph"
    started = time.perf_counter()
    done = subprocess.run(
        [str(hippograph), "import", str(file), "--no-progress"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=3600,
    )
    wall = time.perf_counter() - started
    found = _SUMMARY.search(done.stdout)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"hippograph import failed ({done.returncode}):\n{done.stderr[-3000:]}")
    figures = {key: float(value) for key, value in found.groupdict().items()}
    return {
        "messages": int(figures["messages"]),
        "new": int(figures["new"]),
        "memunits": int(figures["memunits"]),
        "memories": int(figures["memories"]),
        "import_s": figures["seconds"],
        "messages_per_s": figures["rate"],
        "command_wall_s": round(wall, 1),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Two imports of the same file on a fresh graph."""
    dev_file(args.file)
    with (
        tempfile.TemporaryDirectory(prefix="hippograph-bench-import-") as data,
        open_graph(args.graph, Path(data)) as graph,
    ):
        env = {k: v for k, v in os.environ.items() if not k.startswith("HIPPOGRAPH_")}
        env |= {"HIPPOGRAPH_GRAPH__DATA_DIR": data, "HIPPOGRAPH_LOG_LEVEL": "warning"}
        env |= graph.env
        if cache := os.environ.get("HIPPOGRAPH_EMBEDDING__CACHE_DIR"):
            env["HIPPOGRAPH_EMBEDDING__CACHE_DIR"] = cache
        first = import_once(args.file, env)
        again = import_once(args.file, env)
    return {
        **report_head("import_rate", graph),
        "file": args.file.name,
        "first": first,
        "again": again,
    }


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=LOCOMO)
    graphs.add_argument(parser)
    report_cli(parser, run, show)


def show(result: Report, args: argparse.Namespace) -> None:
    """The first import and the repeated one."""
    first, again = result["first"], result["again"]
    graphs.show_graph(result)
    print(
        f"import {result['file']}: {first['messages']} messages, {first['memories']} memories, "
        f"{first['messages_per_s']} messages/s ({first['import_s']} s; the whole command "
        f"{first['command_wall_s']} s)"
    )
    print(f"again: {again['new']} new, {again['messages_per_s']} messages/s")


if __name__ == "__main__":
    main()
