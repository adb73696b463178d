"""docs/operations.md lists every metric a process exposes, by the name a scrape shows."""

from __future__ import annotations

import re
from pathlib import Path

from hippograph.metrics import Metrics

OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def test_the_operations_guide_names_every_metric_and_only_those() -> None:
    section = OPERATIONS.read_text().split("\n## Health, readiness, metrics\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    documented = set(re.findall(r"`(hippograph_[a-z_]+)", section))
    exposed = {
        # A counter's samples carry _total, as the guide (and a query) names them.
        f"{family.name}_total" if family.type == "counter" else family.name
        for family in Metrics().registry.collect()
    }
    assert documented == exposed
