"""docs/operations.md lists every metric a process exposes, by the name a scrape shows."""

from __future__ import annotations

import re

from hippograph.metrics import Metrics
from tests.documents import section


def test_the_operations_guide_names_every_metric_and_only_those() -> None:
    metrics = section("docs/operations.md", "Health, readiness, metrics")
    documented = set(re.findall(r"`(hippograph_[a-z_]+)", metrics))
    exposed = {
        # A counter's samples carry _total, as the guide (and a query) names them.
        f"{family.name}_total" if family.type == "counter" else family.name
        for family in Metrics().registry.collect()
    }
    assert documented == exposed
