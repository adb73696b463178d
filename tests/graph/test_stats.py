"""Operators' counts (``/metrics``): memories by kind, level and deletion, jobs by kind and status."""

from __future__ import annotations

from datetime import timedelta

from graph.store import GraphStore
from hippograph.ids import IdKind, new_id
from hippograph.jobs import Job, JobStatus
from hippograph.models import MemoryKind, MemoryLevel
from hippograph.services.reflection import ReflectJob
from tests.support import T0, add_memory, add_user, memory


async def test_counts_group_memories_and_jobs_as_an_operator_filters_them(
    store: GraphStore,
) -> None:
    await add_user(store, "ann")
    await add_memory(store, memory("ann", "Ann drinks tea"))
    await add_memory(store, memory("ann", "Ann ran a race", kind=MemoryKind.EVENT))
    await add_memory(store, memory("ann", "tea", level=MemoryLevel.TAG))
    gone = await add_memory(store, memory("ann", "Ann's old city: Oslo"))
    assert await store.memories.soft_delete(gone.id, T0 + timedelta(days=1))
    await store.jobs.submit(
        Job(
            id=new_id(IdKind.JOB, T0),
            status=JobStatus.QUEUED,
            user_ids=("ann",),
            params=ReflectJob(user_id="ann", force=True),
            created_at=T0,
        )
    )
    counts = await store.stats.counts()
    assert counts.memories == {
        ("semantic", "full", False): 1,
        ("event", "full", False): 1,
        ("semantic", "tag", False): 1,
        ("semantic", "full", True): 1,
    }
    assert counts.jobs == {("reflect", "queued"): 1}
    nodes, edges = await store.stats.shape()
    assert nodes["Memory"] == 4
    assert nodes["Job"] == 1
    assert edges.get("DERIVED_FROM", 0) == 0  # no sources were given


async def test_an_empty_graph_counts_nothing(store: GraphStore) -> None:
    counts = await store.stats.counts()
    assert (counts.memories, counts.jobs) == ({}, {})
