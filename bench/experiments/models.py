"""Recall per embedding model: the ablation run once per model, precision and granularity.

Each combination is ``python -m bench.ablation --json`` in a child process
with ``HIPPOGRAPH_EMBEDDING__MODEL`` and ``__PRECISION`` set, on both dev
files, so every model meets the same pipeline and the same questions. Prints
one row per model, granularity and configuration: recall@10 overall and per
category on each file.

python -m bench.experiments.models [--models all-minilm-l6-v2:float32,e5-small-v2:int8,...]
    [--granularities turn,memunit,memory] [--configs full,vector,keyword,dense]
    [--output models.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.common import machine

MODELS = (
    "all-minilm-l6-v2:float32",
    "e5-small-v2:float32",
    "e5-small-v2:int8",
    "bge-small-en-v1.5:float32",
    "bge-small-en-v1.5:int8",
)


def run(model: str, precision: str, granularity: str, configs: str) -> dict[str, Any]:
    """One ablation run's JSON report."""
    env = {
        **os.environ,
        "HIPPOGRAPH_EMBEDDING__MODEL": model,
        "HIPPOGRAPH_EMBEDDING__PRECISION": precision,
        "HIPPOGRAPH_LOG_LEVEL": "warning",
    }
    command = [sys.executable, "-m", "bench.ablation", "--json", "--k", "5,10"]
    command += ["--granularity", granularity, "--configs", configs]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def rows(name: str, granularity: str, report: dict[str, Any]) -> list[str]:
    """Table rows: recall@10 overall, then per category, for each file and configuration."""
    out = []
    for data, by_config in report.items():
        if not data.endswith(".json"):
            continue
        for config, entry in by_config.items():
            recall = entry["recall"]
            cells = [f"{c}={v['10']:.3f}" for c, v in recall.items() if c != "overall"]
            overall = recall["overall"]["10"]
            out.append(
                f"{name:26} {granularity:8} {data:18} {config:8} {overall:.3f}  " + " ".join(cells)
            )
    return out


def main() -> int:
    """Run every combination; print the table, write everything to --output."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--granularities", default="turn,memunit,memory")
    parser.add_argument("--configs", default="full,vector,keyword,dense")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    everything: dict[str, Any] = {"machine": machine(), "runs": {}}
    for spec in args.models.split(","):
        model, _, precision = spec.partition(":")
        for granularity in args.granularities.split(","):
            report = run(model, precision or "auto", granularity, args.configs)
            everything["runs"][f"{spec}/{granularity}"] = report
            print("\n".join(rows(spec, granularity, report)), flush=True)
            if args.output is not None:
                args.output.write_text(json.dumps(everything, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
