"""Cold start of `hippograph serve`: spawn to the first answered query, model load included.

Each run starts a fresh process on an empty data directory (so the embedded
ArcadeDB creates its database and indexes too), waits until a search through
GraphQL answers, then stops it; a last run restarts on existing data. The
runs share a model cache that starts empty, so the first run also exports
the model to ONNX, as the first start on a new machine does; it is reported
apart.

    python bench/cold_start.py [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import ADMIN_HEADERS, ADMIN_KEY, document, machine, report_cli, serve_env
from graph.embedded import free_port

USER = {"query": document("BenchUser"), "variables": {"id": "cold", "name": "Cold"}}
SEARCH = {"query": document("BenchSearch"), "variables": {"u": "cold", "q": "hello there"}}


def one_start(data_dir: Path, model_cache: Path) -> float:
    """Seconds from spawn to the first answered search; the process is stopped after."""
    port = free_port()
    env = serve_env(data_dir, port, ADMIN_KEY) | {
        "HIPPOGRAPH_EMBEDDING__CACHE_DIR": str(model_cache)
    }
    started = time.monotonic()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "hippograph"), "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers=ADMIN_HEADERS, timeout=10
        ) as client:
            while True:
                if server.poll() is not None or time.monotonic() - started > 120:
                    raise RuntimeError("serve did not answer within 120 s")
                try:
                    client.post("/graphql", json=USER)
                    answer = client.post("/graphql", json=SEARCH)
                    if answer.status_code == 200 and "errors" not in answer.json():
                        return time.monotonic() - started
                except httpx.HTTPError:
                    time.sleep(0.05)
    finally:
        server.terminate()
        server.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    report_cli(parser, measure, show)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """The first start, ``--runs`` starts on fresh data, and a restart on existing data."""
    cache = Path(tempfile.mkdtemp(prefix="hippograph-cold-models-"))
    first = one_start(Path(tempfile.mkdtemp(prefix="hippograph-cold-")), cache)
    fresh = [
        one_start(Path(tempfile.mkdtemp(prefix="hippograph-cold-")), cache)
        for _ in range(args.runs)
    ]
    existing_dir = Path(tempfile.mkdtemp(prefix="hippograph-cold-"))
    one_start(existing_dir, cache)
    restart = one_start(existing_dir, cache)
    return {
        "benchmark": "cold_start",
        "machine": machine(),
        "first_start_with_model_export_s": round(first, 2),
        "fresh_data_s": [round(x, 2) for x in fresh],
        "fresh_data_median_s": round(statistics.median(fresh), 2),
        "existing_data_s": round(restart, 2),
    }


def show(result: dict[str, Any], args: argparse.Namespace) -> None:
    """The figures in one sentence."""
    print(
        f"cold start to first answered search: median {result['fresh_data_median_s']} s "
        f"over {args.runs} fresh starts {result['fresh_data_s']}; "
        f"restart on existing data {result['existing_data_s']} s; the very first start, "
        f"exporting the model: {result['first_start_with_model_export_s']} s"
    )


if __name__ == "__main__":
    main()
