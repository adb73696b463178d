"""What reading entities costs per message: the offline extractor over every LoCoMo dev turn.

Pure CPU, no graph: memorize runs it once per message and once per memory,
beside an embedding that costs several milliseconds a text on two cores.

    python -m bench.experiments.entity_cost [--data FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.common import LOCOMO, locomo_turns
from hippograph.entities import extract_entities

SAID = datetime(2023, 5, 8, 14, 0, tzinfo=UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    turns = [text.split(" said, ", 1) for _, text in locomo_turns(args.data)]
    speakers = sorted({speaker for speaker, _ in turns})
    extract_entities(turns[0][0], turns[0][1], SAID, speakers)  # pays for lazy set-up
    started = time.perf_counter()
    found = [extract_entities(speaker, said, SAID, speakers) for speaker, said in turns]
    elapsed = time.perf_counter() - started
    report = {
        "messages": len(turns),
        "us_per_message": round(elapsed / len(turns) * 1e6, 1),
        "entities_per_message": round(sum(map(len, found)) / len(turns), 2),
    }
    if args.json:
        print(json.dumps(report))
        return
    print(
        f"{report['messages']} messages: {report['us_per_message']} µs each, "
        f"{report['entities_per_message']} entities each"
    )


if __name__ == "__main__":
    main()
