"""LoCoMo retrieval recall@k for KEYWORD, VECTOR and HYBRID (same as `hippograph bench locomo`).

python -m bench.locomo --data bench/data/locomo/locomo_dev.json [--json]
"""

from __future__ import annotations

import sys

from bench.common import LOCOMO, dev_file
from hippograph.cli import main

if __name__ == "__main__":
    args = sys.argv[1:]
    if "--data" not in args:
        args = ["--data", str(dev_file(LOCOMO)), *args]
    raise SystemExit(main(["bench", "locomo", *args]))
