"""``hippograph bench``: the benchmarks that ship with the service (LoCoMo retrieval)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from hippograph.settings import Settings


def cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    """Run a benchmark; only LoCoMo retrieval for now."""
    from hippograph.benchmark.locomo import format_table, run_locomo
    from hippograph.scoring import SearchMethod

    try:
        methods = [SearchMethod(m.strip().lower()) for m in args.method.split(",")]
        ks = sorted({int(k) for k in args.k.split(",")})
    except ValueError as exc:
        raise SystemExit(f"hippograph bench: {exc}") from exc
    if not args.data.exists():
        raise SystemExit(f"hippograph bench: no such file {args.data}")
    report = asyncio.run(
        run_locomo(
            args.data,
            methods,
            ks,
            args.granularity,
            progress=not args.json,
            reflection=args.reflection,
            per_question=args.per_question,
            base=settings,
        )
    )
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(format_table(report, methods, ks))
    return 0


def add_bench_parser(sub: Any) -> None:
    """The ``bench`` command and its sub-commands, on ``sub`` (the CLI's subparsers)."""
    bench = sub.add_parser("bench", help="run a benchmark")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True)
    locomo = bench_sub.add_parser("locomo", help="LoCoMo retrieval recall@k per method")
    locomo.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    locomo.add_argument("--method", default="keyword,vector,hybrid", help="comma-separated")
    locomo.add_argument("--k", default="5,10,25,50", help="comma-separated turn budgets")
    locomo.add_argument(
        "--granularity",
        default="turn",
        choices=["turn", "memunit", "memory"],
        help="turn: a memory per turn; memunit: MemUnits of the memorize pipeline; "
        "memory: the memories it derives (episodes, events, facts, profile)",
    )
    locomo.add_argument(
        "--reflection",
        default="off",
        choices=["off", "after"],
        help="off: memories as memorize left them; after: one reflect run per "
        "conversation first (consolidated facts leave default search)",
    )
    locomo.add_argument(
        "--per-question",
        type=Path,
        metavar="FILE",
        help="also write one JSON line per question and method (question, category, "
        "evidence, retrieved dia_ids, recall@k), for failure analysis",
    )
    locomo.add_argument("--json", action="store_true", help="one JSON object on stdout")
    bench.set_defaults(func=cmd_bench)
