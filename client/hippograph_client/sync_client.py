"""``HippoGraph``: the API from plain (blocking) code, a thin layer over ``AsyncHippoGraph``.

Each method runs the async client's method of the same name on an event
loop the client keeps on a thread of its own, and waits for it: one
implementation of every operation, its errors and its job waiting, for both
ways of calling. The loop's thread also lets a blocking caller that is
itself inside a running loop (a notebook, a framework's sync handler) use it.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from hippograph_client.async_client import AsyncHippoGraph
from hippograph_client.calls import Call
from hippograph_client.transport import DEFAULT_TIMEOUT

T = TypeVar("T")
P = ParamSpec("P")


def _blocking(
    method: Callable[Concatenate[AsyncHippoGraph, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[HippoGraph, P], T]:
    """The async client's ``method`` as a blocking one, with its signature and docstring."""

    def call(self: HippoGraph, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._wait(method(self._async, *args, **kwargs))

    functools.update_wrapper(call, method)  # its name, docstring and signature
    return call


class HippoGraph:
    """A HippoGraph server, reached with one API key, from blocking code.

    ``url`` is the server's address (``http://127.0.0.1:8000``) or its
    GraphQL endpoint. Use it as ``with HippoGraph(url, key) as hg:``, or
    call ``close()``. It has the methods of ``AsyncHippoGraph``, with the
    same arguments, results and errors (they are its methods, run to the
    end); only ``close`` differs.
    """

    def __init__(self, url: str, key: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._async = AsyncHippoGraph(url, key, timeout=timeout)  # refuses a blank key first
        self.url = self._async.url
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="hippograph-client", daemon=True
        )
        self._thread.start()

    def _wait(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` on the client's loop and wait for its result (or its exception)."""
        future = asyncio.run_coroutine_threadsafe(work, self._loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()  # an interrupted caller leaves nothing running behind it
            raise

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP client and stop the client's loop (closing twice does nothing)."""
        if self._loop.is_closed():
            return
        try:
            self._wait(self._async.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def run(self, call: Call[T]) -> T:
        """Send one operation and read its answer."""
        return self._wait(self._async.run(call))

    viewer = _blocking(AsyncHippoGraph.viewer)
    create_api_key = _blocking(AsyncHippoGraph.create_api_key)
    create_user = _blocking(AsyncHippoGraph.create_user)
    delete_user = _blocking(AsyncHippoGraph.delete_user)
    user = _blocking(AsyncHippoGraph.user)
    users = _blocking(AsyncHippoGraph.users)
    create_session = _blocking(AsyncHippoGraph.create_session)
    add_messages = _blocking(AsyncHippoGraph.add_messages)
    memorize = _blocking(AsyncHippoGraph.memorize)
    job = _blocking(AsyncHippoGraph.job)
    wait_for_job = _blocking(AsyncHippoGraph.wait_for_job)
    settle_job = _blocking(AsyncHippoGraph.settle_job)
    search = _blocking(AsyncHippoGraph.search)
    memory = _blocking(AsyncHippoGraph.memory)
    memories = _blocking(AsyncHippoGraph.memories)
    entities = _blocking(AsyncHippoGraph.entities)
    add_memory = _blocking(AsyncHippoGraph.add_memory)
    update_memory = _blocking(AsyncHippoGraph.update_memory)
    delete_memory = _blocking(AsyncHippoGraph.delete_memory)
    delete_with_provenance = _blocking(AsyncHippoGraph.delete_with_provenance)
    apply_memory_ops = _blocking(AsyncHippoGraph.apply_memory_ops)
    provenance = _blocking(AsyncHippoGraph.provenance)
    reflect = _blocking(AsyncHippoGraph.reflect)
    forget = _blocking(AsyncHippoGraph.forget)
