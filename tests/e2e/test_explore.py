"""The /explore page: self-contained, and in headless Chromium it draws what the API returns."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from hippograph.ids import IdKind, new_id
from hippograph.server.app import create_app
from hippograph.settings import GraphSettings, Settings
from tests.api.conftest import ADMIN_KEY, Api, add_memory, seed_user
from tests.e2e.browser import run_check

REFERENCE = re.compile(r"""(?:src|href)\s*=\s*["']([^"']*)["']""")
# absolute URLs, and protocol-relative ones in string literals (not `//` comments)
ABSOLUTE = re.compile(r"""https?://|["'`(]//""", re.IGNORECASE)

PROVENANCE = """
query($id: ID!) {
  provenance(id: $id, depth: 4, direction: DOWN) { nodes { id } edges { source type target } }
}"""


class LiveApi(Api):
    """The tests/api helpers, over real HTTP to the live server."""

    def __init__(self, http: httpx.Client, key: str | None) -> None:
        self.http = http
        self.key = key

    def post(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        response = self.http.post(
            "/graphql", json={"query": query, "variables": variables or {}}, headers=headers
        )
        body: dict[str, Any] = response.json()
        body["_status"] = response.status_code
        return body


def test_the_explore_page_references_nothing_outside_the_app(tmp_path: Path) -> None:
    # no lifespan: serving the page needs no database
    client = TestClient(create_app(Settings(graph=GraphSettings(data_dir=tmp_path))))
    page = client.get("/explore")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    references = REFERENCE.findall(page.text)
    assert "/static/explore.js" in references
    texts = {"/explore": page.text}
    for reference in references:
        assert reference.startswith("data:") or (
            reference.startswith("/") and not reference.startswith("//")
        ), reference
        if reference.startswith("/static/"):
            asset = client.get(reference)
            assert asset.status_code == 200, reference
            texts[reference] = asset.text
    assert {name: ABSOLUTE.findall(text) for name, text in texts.items()} == {
        name: [] for name in texts
    }


@pytest.mark.slow  # headless Chromium
def test_explore_draws_every_node_of_the_provenance_in_chromium(live_server: str) -> None:
    with httpx.Client(base_url=live_server, timeout=60) as http:
        api = LiveApi(http, ADMIN_KEY)
        _, (m1, m2, m3, m4) = seed_user(
            api, "ann", ["I moved to Lyon", "I am a nurse", "Night shifts", "I love the Alps"]
        )
        lyon = add_memory(
            api, "ann", "<b>Ann</b> <img src=x onerror=alert(1)> lives in Lyon", [m1, m2]
        )
        work = add_memory(api, "ann", "Ann works night shifts as a nurse", [m2, m3])
        summary = add_memory(api, "ann", "Ann: a nurse in Lyon who hikes", [lyon, work, m4])
        walked = api.ok(PROVENANCE, {"id": summary})["provenance"]
    expected = {n["id"] for n in walked["nodes"]}
    assert len(expected) == 7

    unknown = new_id(IdKind.MEMORY, datetime.now(UTC))
    report = run_check(
        "explore-check.mjs",
        live_server,
        ADMIN_KEY,
        summary,
        f"click:{lyon}",
        unknown,
        "bogus",
        f"tab:{work}",
    )
    assert report["ok"], report
    assert report["outside"] == [], "the page tried to reach the internet"
    assert report["errors"] == []
    drawn, rerooted, missing, bad, other_tab = report["views"]

    assert drawn["state"] == "done", drawn
    assert len(drawn["nodeIds"]) == len(walked["nodes"]) > 2
    assert set(drawn["nodeIds"]) == expected
    assert sorted(drawn["edgeTypes"]) == sorted(e["type"] for e in walked["edges"])
    assert any("<img src=x onerror=alert(1)>" in title for title in drawn["titles"])
    assert drawn["markup"] == 0
    assert {"Message", "SemanticMemory"} <= set(drawn["legend"])
    assert drawn["url"].endswith(f"?id={summary}")

    assert rerooted["state"] == "done", rerooted
    assert set(rerooted["nodeIds"]) == {lyon, m1, m2}
    assert rerooted["url"].endswith(f"?id={lyon}")

    assert (missing["state"], missing["nodeIds"]) == ("error", [])
    assert "not found or not yours" in missing["status"]
    assert bad["state"] == "error"
    assert "id" in bad["status"]

    # Another tab of the same browser has the key (kept per origin) and draws at once.
    assert other_tab["keyFilled"] is True
    assert other_tab["state"] == "done", other_tab
    assert set(other_tab["nodeIds"]) == {work, m2, m3}
