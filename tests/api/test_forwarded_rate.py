"""X-Forwarded-For picks no rate-limit bucket unless the proxy sending it is named."""

from __future__ import annotations

from pathlib import Path

import httpx

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from tests.api.conftest import make_settings
from tests.graphs import TestDatabase
from tests.serving import serving


def _limited(url: str, requests: int) -> int:
    """How many of ``requests`` anonymous requests, each forwarded for a new address, got 429."""
    refused = 0
    with httpx.Client(base_url=url, timeout=30) as http:
        for i in range(requests):
            response = http.post(
                "/graphql",
                json={"query": "{ __typename }"},
                headers={"X-Forwarded-For": f"198.51.100.{i + 1}"},
            )
            refused += response.status_code == 429
    return refused


def test_forwarded_addresses_count_only_from_named_proxies(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    limits = {"rate_limit_per_s": 0.001, "rate_limit_burst": 5}
    app = create_app(
        make_settings(graph_db, tmp_path, **limits), embedder=embedder, **graph_db.start
    )
    with serving(app) as url:
        # By default loopback's word is not taken: 40 requests share its bucket.
        assert _limited(url, 40) == 35
    trusted = make_settings(graph_db, tmp_path, trusted_proxies=["127.0.0.1"], **limits)
    with serving(create_app(trusted, embedder=embedder, **graph_db.start)) as url:
        # Behind a proxy we name, each forwarded client has its own.
        assert _limited(url, 40) == 0
