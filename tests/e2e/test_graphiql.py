"""GraphiQL works offline: headless Chromium loads /graphql, runs a query, sees the result."""

from __future__ import annotations

import json
import urllib.parse

import pytest

from tests.api.conftest import ADMIN_KEY
from tests.e2e.browser import run_check

pytestmark = pytest.mark.slow  # headless Chromium against a live server


def test_graphiql_runs_a_query_with_no_internet(live_server: str) -> None:
    query = "{ viewer { keyId admin } }"
    headers = json.dumps({"Authorization": f"Bearer {ADMIN_KEY}"})
    url = f"{live_server}/graphql?" + urllib.parse.urlencode({"q": query, "headers": headers})
    report = run_check("graphiql-check.mjs", url, "settings-admin")
    assert report["ok"], report
    assert '"admin": true' in report["text"]
    assert report["outside"] == [], "the page tried to reach the internet"
    assert report["errors"] == []
