"""Memorize queues a reflect run after writing facts, unless the operator turned that off."""

from __future__ import annotations

from pathlib import Path

import pytest
from neo4j import AsyncManagedTransaction
from starlette.testclient import TestClient

from graph.driver import fetch
from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.server.app import create_app
from hippograph.settings import MemorizeSettings, Settings
from tests.api.conftest import ADD_MEMORY, ADMIN_KEY, CREATE_USER, Api, make_settings
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

    assert _reflect_jobs(client) == (1 if settings.memorize.reflect_after_write else 0)


def _reflect_jobs(client: TestClient) -> int:
    """How many reflect jobs the app's graph holds."""
    runtime = client.app.state.runtime  # type: ignore[attr-defined]

    async def count(tx: AsyncManagedTransaction) -> int:
        rows = await fetch(tx, COUNT_REFLECT_JOBS, {})
        return int(rows[0]["n"])

    assert client.portal is not None
    return int(client.portal.call(runtime.connection.store.graph.read, count))


def test_the_reflection_sweep_reaches_users_past_its_first_page(
    graph_db: TestDatabase, tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    base = make_settings(graph_db, tmp_path)
    paged = base.model_copy(
        update={"reflection": base.reflection.model_copy(update={"sweep_page": 2})}
    )
    app = create_app(paged, embedder=embedder, **graph_db.start)
    with TestClient(app) as client:
        api = Api(client, ADMIN_KEY)
        users = [f"user{i}" for i in range(5)]
        for user in users:
            api.ok(CREATE_USER, {"id": user, "name": user.title()})
            for fact in ("likes tea", "lives in Oslo", "plays chess", "has a cat", "runs"):
                api.ok(
                    ADD_MEMORY,
                    {"input": {"userId": user, "content": f"{user} {fact}", "importance": 0.9}},
                )
        runtime = client.app.state.runtime  # type: ignore[attr-defined]
        assert client.portal is not None
        jobs = client.portal.call(runtime.services.reflection.sweep)
        # Five users due, pages of two: every one of them gets its run.
        assert sorted(u for job in jobs for u in job.user_ids) == users


def test_a_sweep_tries_one_pending_set_once_and_again_when_it_changes(
    graph_db: TestDatabase, tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    base = make_settings(graph_db, tmp_path)
    # No two facts are one theme: every run makes nothing.
    apart = base.reflection.model_copy(update={"cluster_threshold": 1.0})
    app = create_app(
        base.model_copy(update={"reflection": apart}), embedder=embedder, **graph_db.start
    )
    with TestClient(app) as client:
        api = Api(client, ADMIN_KEY)
        api.ok(CREATE_USER, {"id": "ann", "name": "Ann"})
        for fact in ("likes tea", "lives in Oslo", "plays chess", "has a cat", "runs"):
            content = f"Ann {fact}"
            api.ok(ADD_MEMORY, {"input": {"userId": "ann", "content": content, "importance": 0.9}})
        runtime = client.app.state.runtime  # type: ignore[attr-defined]
        assert client.portal is not None
        sweep = runtime.services.reflection.sweep
        first, again = client.portal.call(sweep), client.portal.call(sweep)
        # The same facts, the same day: the same job, not another record.
        assert [j.user_ids for j in first] == [("ann",)]
        assert [j.id for j in again] == [j.id for j in first]
        assert _reflect_jobs(client) == 1
        api.ok(ADD_MEMORY, {"input": {"userId": "ann", "content": "Ann bakes", "importance": 0.9}})
        changed = client.portal.call(sweep)
        assert len(changed) == 1
        assert changed[0].id != first[0].id
        assert _reflect_jobs(client) == 2
