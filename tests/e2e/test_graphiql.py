"""GraphiQL works offline: headless Chromium loads /graphql, runs a query, sees the result."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.parse
from pathlib import Path

import pytest

from tests.api.conftest import ADMIN_KEY

ROOT = Path(__file__).resolve().parents[2]


def test_graphiql_runs_a_query_with_no_internet(live_server: str) -> None:
    if shutil.which("chromium") is None:
        pytest.fail("Chromium is needed: run `make test` (it installs Debian's chromium)")
    query = "{ viewer { keyId admin } }"
    headers = json.dumps({"Authorization": f"Bearer {ADMIN_KEY}"})
    url = f"{live_server}/graphql?" + urllib.parse.urlencode({"q": query, "headers": headers})
    done = subprocess.run(
        ["node", str(ROOT / "web" / "graphiql-check.mjs"), url, "settings-admin"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT / "web",
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["ok"], report
    assert '"admin": true' in report["text"]
    assert report["outside"] == [], "the page tried to reach the internet"
    assert report["errors"] == []
