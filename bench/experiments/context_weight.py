"""Recall against how much of the turn before goes into a turn's vector.

Runs ``hippograph bench locomo`` at turn granularity once per weight and per
file, each in a fresh embedded graph, and prints VECTOR and HYBRID recall@k
side by side (``HIPPOGRAPH_MEMORIZE__TURN_CONTEXT_WEIGHT``; issue 20 item 4).

python -m bench.experiments.context_weight [--weights 0.5,0.25,0] [--k 10]
    [--data bench/data/locomo/locomo_dev.json bench/data/realtalk/realtalk_dev.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import LOCOMO, REALTALK, dev_file


def recall(data: Path, weight: float, k: int) -> dict[str, float]:
    """Overall recall@k of VECTOR and HYBRID on ``data`` with the given weight."""
    with tempfile.TemporaryDirectory(prefix="hippograph-cw-") as data_dir:
        env = os.environ | {
            "HIPPOGRAPH_MEMORIZE__TURN_CONTEXT_WEIGHT": str(weight),
            "HIPPOGRAPH_GRAPH__DATA_DIR": data_dir,
        }
        command = [
            sys.executable,
            *("-m", "hippograph.cli", "bench", "locomo", "--data", str(dev_file(data))),
            *("--method", "vector,hybrid", "--k", str(k), "--granularity", "turn", "--json"),
        ]
        out = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    return {m: report[m]["overall"][f"recall@{k}"] for m in ("vector", "hybrid")}


def main() -> int:
    """Print one row per weight: recall of each method on each file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default="0.5,0.25,0")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--data", type=Path, nargs="+", default=[LOCOMO, REALTALK])
    args = parser.parse_args()
    weights = [float(w) for w in args.weights.split(",")]
    header = ["weight"] + [f"{d.stem} {m}" for d in args.data for m in ("vector", "hybrid")]
    print("  ".join(header))
    for weight in weights:
        row = [f"{weight:g}"]
        for data in args.data:
            found = recall(data, weight, args.k)
            row += [f"{found['vector']:.3f}", f"{found['hybrid']:.3f}"]
        print("  ".join(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
