"""The embedded graph's start with and without the JVM's class-data archives.

Makes this install's archives (``graph/jvm_archive.py``) in a cache of its
own, timing that, then starts in turns (with, without, then without, with, …)
so that the machine's drift falls on both alike, ``--rounds`` of each:

* ``start``: a process that starts the embedded server and stops it (what
  every command of the command line and every test worker pays), its wall
  time and its CPU time;
* ``serve``: ``hippograph serve`` on a new data directory until ``/readyz``
  answers ready, then stopped with SIGINT.

The JVM's options are the package's defaults unless ``ARCADEDB_JVM_ARGS`` sets
others (the test suite's are ``-XX:TieredStopAtLevel=1 -XX:+UseSerialGC``).

    python -m bench.experiments.jvm_archives [--rounds 5] [--json]
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import alternated, machine, percentiles, report_cli, stopwatch
from graph.embedded import free_port
from graph.jvm_archive import archives, prepare

WAYS = ("with", "without")
START = (
    "import sys; from pathlib import Path; from graph.embedded import EmbeddedArcadeDB; "
    "s = EmbeddedArcadeDB(Path(sys.argv[1])); s.start(); s.stop()"
)
READY_TIMEOUT_S = 120.0


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start(env: dict[str, str], work: Path) -> tuple[float, float]:
    """Wall and CPU seconds of a process that starts the embedded server and stops it."""
    cpu = _children_cpu_s()
    with stopwatch() as took:
        subprocess.run(
            [sys.executable, "-c", START, str(work / "start")], env=env, check=True, timeout=300
        )
    return took[0], _children_cpu_s() - cpu


def serve(env: dict[str, str], work: Path) -> tuple[float, float]:
    """Seconds until a new ``hippograph serve`` is ready, and its CPU seconds in all."""
    port = free_port()
    served = {
        **env,
        "HIPPOGRAPH_GRAPH__DATA_DIR": str(work / "serve"),
        "HIPPOGRAPH_API__PORT": str(port),
    }
    cpu = _children_cpu_s()
    began = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "hippograph.cli", "serve"],
        env=served,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"serve exited with {process.returncode} before it was ready")
            if time.perf_counter() - began > READY_TIMEOUT_S:
                raise RuntimeError(f"serve was not ready within {READY_TIMEOUT_S:g} s")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        ready = time.perf_counter() - began
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
    return ready, _children_cpu_s() - cpu


def run(args: argparse.Namespace) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="hippograph-jvm-archives-"))
    caches = {"with": root / "cache-with", "without": root / "cache-without"}
    found = archives(caches["with"] / "hippograph" / "jvm")
    with stopwatch() as took:
        prepare("hippograph.cli_jvm", found)
    samples: dict[str, dict[str, list[float]]] = {
        way: {"start_s": [], "start_cpu_s": [], "ready_s": [], "serve_cpu_s": []} for way in WAYS
    }
    for round_ in range(args.rounds):
        for way in alternated(WAYS, round_):
            work = Path(tempfile.mkdtemp(dir=root))
            env = {**os.environ, "XDG_CACHE_HOME": str(caches[way])}
            wall, cpu = start(env, work)
            samples[way]["start_s"].append(wall)
            samples[way]["start_cpu_s"].append(cpu)
            ready, cpu = serve(env, work)
            samples[way]["ready_s"].append(ready)
            samples[way]["serve_cpu_s"].append(cpu)
    return {
        "benchmark": "jvm_archives",
        "machine": machine(),
        "settings": {
            "rounds": args.rounds,
            "jvm_args": os.environ.get("ARCADEDB_JVM_ARGS", ""),
        },
        "prepare_s": round(took[0], 1),
        "archives_mb": round(sum(p.stat().st_size for p in (found.base, found.top)) / 1e6, 1),
        "figures_ms": {
            way: {name: percentiles([s * 1000 for s in values]) for name, values in kinds.items()}
            for way, kinds in samples.items()
        },
    }


def show(report: dict[str, Any], args: argparse.Namespace) -> None:
    """Each way's medians: a start's wall and CPU, serve's time to ready and CPU."""
    print(f"archives made in {report['prepare_s']} s, {report['archives_mb']} MB")
    for way in WAYS:
        f = report["figures_ms"][way]
        print(
            f"{way:7s}: start p50 {f['start_s']['p50']:.0f} ms (CPU {f['start_cpu_s']['p50']:.0f}"
            f" ms), serve ready p50 {f['ready_s']['p50']:.0f} ms (CPU to exit "
            f"{f['serve_cpu_s']['p50']:.0f} ms), n={f['start_s']['n']}"
        )
    print(report["settings"]["jvm_args"] or "the package's default JVM options")
    print(report["machine"])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="starts of each way")
    report_cli(parser, run, show)


if __name__ == "__main__":
    main()
