"""Memorize queues a reflect run after writing facts, unless the operator turned that off."""

from __future__ import annotations

from pathlib import Path

import pytest
from neo4j import AsyncManagedTransaction
from starlette.testclient import TestClient

from graph.driver import fetch
from hippograph.settings import MemorizeSettings, Settings
from tests.api.conftest import Api, make_settings
from tests.api.test_memorize import _memorize, _user_with_session
from tests.graphs import TestDatabase

COUNT_REFLECT_JOBS = "MATCH (j:Job) WHERE j.kind = 'reflect' RETURN count(j) AS n"


@pytest.fixture(params=[True, False], ids=["reflect-after-write", "sweep-only"])
def settings(graph_db: TestDatabase, tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    base = make_settings(graph_db, tmp_path)
    return base.model_copy(update={"memorize": MemorizeSettings(reflect_after_write=request.param)})


def test_reflect_jobs_follow_the_setting(api: Api, client: TestClient, settings: Settings) -> None:
    result = _memorize(api, _user_with_session(api))
    assert result["__typename"] == "Memorized", result
    assert result["counts"]["memories"] >= 4

    runtime = client.app.state.runtime  # type: ignore[attr-defined]

    async def work(tx: AsyncManagedTransaction) -> int:
        rows = await fetch(tx, COUNT_REFLECT_JOBS, {})
        return int(rows[0]["n"])

    queued = client.portal.call(runtime.connection.store.graph.read, work)  # type: ignore[union-attr]
    assert queued == (1 if settings.memorize.reflect_after_write else 0)
