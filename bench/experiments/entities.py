"""Recall with and without the entity walk, side by side, on a LoCoMo-format file.

Runs ``hippograph bench locomo`` twice on fresh data directories, once with
``HIPPOGRAPH_SEARCH__ENTITY_WEIGHT=0`` (no walk, the default) and once with
``--weight`` (0.2),
and prints recall@k per category of both. Nothing is tuned here: the walk's
settings are the defaults.

    python -m bench.experiments.entities --data bench/data/locomo/locomo_dev.json \\
        [--granularity memory] [--k 5,10] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def _run(data: Path, granularity: str, k: str, weight: float, as_json: bool) -> Any:
    env = os.environ | {
        "HIPPOGRAPH_GRAPH__DATA_DIR": tempfile.mkdtemp(prefix="hippograph-entities-"),
        "HIPPOGRAPH_SEARCH__ENTITY_WEIGHT": str(weight),
    }
    hippograph = Path(sys.executable).parent / "hippograph"
    done = subprocess.run(
        [
            str(hippograph),
            "bench",
            "locomo",
            "--data",
            str(data),
            "--method",
            "hybrid",
            "--k",
            k,
            "--granularity",
            granularity,
            *(["--json"] if as_json else []),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout) if as_json else done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--granularity", default="memory")
    parser.add_argument("--k", default="5,10")
    parser.add_argument("--weight", type=float, default=0.2, help="entity weight of the walk run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = {
        name: _run(args.data, args.granularity, args.k, weight, args.json)
        for name, weight in (("walk_off", 0.0), ("walk_on", args.weight))
    }
    if args.json:
        print(json.dumps(runs, indent=2))
        return
    for name, table in runs.items():
        print(f"== {name}")
        print(table)


if __name__ == "__main__":
    main()
