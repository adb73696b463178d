"""The soak of bench/soak.py, short: mixed tenants on a served stack, no error but 429.

Three tenants with their own keys, each with a subscription open, a search,
add, memorize (now and as a job) and MCP mix, for 40 seconds on
``hippograph serve`` over the embedded store. The ten-minute run, with the
p95 drift and memory growth, is ``python -m bench.soak`` (both servers).
"""

from __future__ import annotations

import pytest

from bench.soak import MIX, Traffic, run
from tests.graphs import TestDatabase

pytestmark = pytest.mark.slow  # a serve process and forty seconds of load

# The soak's own words: the suite never needs the dev conversations, which
# are not in the repository (the ten-minute bench reads them from bench/data/).
PLACES = ["Lisbon", "Osaka", "Quito", "Tallinn", "Accra", "Hobart", "Bergen", "Cusco"]
HOBBIES = [
    "pottery",
    "bouldering",
    "chess",
    "sourdough",
    "birding",
    "kayaking",
    "fencing",
    "weaving",
]
TRAFFIC = Traffic(
    turns=[
        (speaker, text)
        for place, hobby in zip(PLACES, HOBBIES, strict=True)
        for speaker, text in (
            ("Ana", f"I spent last summer in {place} and took up {hobby} there."),
            ("Ben", f"{place} sounds lovely. How long have you been doing {hobby}?"),
            ("Ana", f"About a year now; the {hobby} group meets every Thursday."),
        )
    ],
    questions=[f"Where did Ana learn {hobby}?" for hobby in HOBBIES]
    + [f"When does the {hobby} group meet?" for hobby in HOBBIES],
)


async def test_a_short_soak_answers_every_request(graph_db: TestDatabase) -> None:
    if graph_db.server != "arcadedb":
        pytest.skip("the bench starts its own stack: the embedded one on the ArcadeDB run")
    report = await run(
        "arcadedb", tenants=3, seconds=40, warmup=10, window=10, seed=5, traffic=TRAFFIC
    )
    assert report["errors_not_429"] == 0, report["errors"]
    assert set(report["by_operation"]) == {operation for operation, _ in MIX}, report
    assert report["subscription_events"] > 0, report
    assert set(report["jobs"]) == {"SUCCEEDED"}, report
    assert report["rss_end_mb"]["serve"] > 0, report
