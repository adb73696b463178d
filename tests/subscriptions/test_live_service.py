"""The live service on its own: a subscription whose key goes, while nothing happens."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.auth import Principal
from hippograph.errors import Unauthenticated
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.settings import Settings
from tests.graphs import TestDatabase


async def test_a_quiet_subscription_ends_once_its_key_is_revoked(
    graph_db: TestDatabase, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    settings = Settings(graph=graph_db.settings(tmp_path))
    runtime = await Runtime.start(settings, embedder=embedder, **graph_db.start)
    try:
        await runtime.services.users.create_user(SETTINGS_ADMIN, "eve", "Eve")
        eve = Principal("key_eve", False, frozenset({"eve"}))
        revoked = asyncio.Event()

        async def recheck() -> Principal:
            if revoked.is_set():
                raise Unauthenticated("this API key was revoked")
            return eve

        live = replace(runtime.services.live, _resync_s=0.05)
        added = live.memories_added(eve, "eve", recheck)
        waiting = asyncio.ensure_future(anext(added))
        await asyncio.sleep(0.2)  # subscribed, no memory comes
        assert not waiting.done()
        revoked.set()
        with pytest.raises(Unauthenticated):
            await asyncio.wait_for(waiting, timeout=5)
        await added.aclose()
    finally:
        await runtime.stop()
