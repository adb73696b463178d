"""``python -m codegen [--check]``: write the contract's modules, or say which are stale."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from graphql import build_schema, parse

from codegen.records import records_module
from codegen.render import enums_module, inputs_module

ROOT = Path(__file__).resolve().parent.parent
OPERATIONS = ROOT / "operations"


def targets() -> dict[Path, Callable[[], str]]:
    """Each written module and how to make its text."""
    schema = build_schema((ROOT / "schema.graphql").read_text(encoding="utf-8"))
    client = parse((OPERATIONS / "client.graphql").read_text(encoding="utf-8"))
    return {
        ROOT / "client/hippograph_client/enums.py": lambda: enums_module(schema),
        ROOT / "client/hippograph_client/input_types.py": lambda: inputs_module(schema),
        ROOT / "client/hippograph_client/records.py": lambda: records_module(schema, client),
    }


def stale() -> list[Path]:
    """The written modules whose text differs from what the sources make now."""
    return [path for path, make in targets().items() if path.read_text(encoding="utf-8") != make()]


def main() -> int:
    """Write every module (or, with ``--check``, list the stale ones and fail)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; fail if stale")
    args = parser.parse_args()
    if args.check:
        out_of_step = stale()
        for path in out_of_step:
            where = path.relative_to(ROOT)
            print(f"{where} is out of step: run python -m codegen", file=sys.stderr)
        return 1 if out_of_step else 0
    for path, make in targets().items():
        path.write_text(make(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
