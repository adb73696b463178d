"""What a command runs in: the whole runtime, or the graph alone."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from hippograph.settings import Settings

if TYPE_CHECKING:
    from graph.store import GraphStore
    from hippograph.runtime import Runtime

T = TypeVar("T")


async def with_runtime(settings: Settings, work: Callable[[Runtime], Awaitable[int]]) -> int:
    """Run ``work`` with the services started (model, graph, jobs), then stop them."""
    from hippograph.runtime import Runtime

    runtime = await Runtime.start(settings)
    try:
        return await work(runtime)
    finally:
        await runtime.stop()


async def with_graph(settings: Settings, work: Callable[[GraphStore], Awaitable[T]]) -> T:
    """Open the graph alone: a dump needs neither the model nor the services."""
    from graph.store import connect
    from hippograph.services import job_payloads

    connection = await connect(settings.graph, job_codec=job_payloads)
    try:
        return await work(connection.store)
    finally:
        await connection.close()
