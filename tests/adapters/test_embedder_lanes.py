"""A search's query does not wait behind a memorize job's batch: the two take different lanes."""

from __future__ import annotations

import asyncio
import math
import os
import sys
import threading
import time

from hippograph.adapters.embedder import SentenceTransformerEmbedder
from hippograph.background import (
    BACKGROUND_NICE,
    GIL_SWITCH_S,
    favour_requests,
    in_background,
    lower_this_thread,
)


def _same(a: list[float], b: list[float]) -> bool:
    return math.fsum(x * y for x, y in zip(a, b, strict=True)) > 0.9999


async def test_a_query_is_answered_while_a_bulk_batch_is_still_encoding(
    embedder: SentenceTransformerEmbedder,
) -> None:
    bulk_texts = [
        f"turn {i}: we talked about the garden and the new puppy again" for i in range(600)
    ]
    bulk = asyncio.create_task(embedder.embed(bulk_texts))
    await asyncio.sleep(0.05)  # the batch is in the model
    started = time.perf_counter()
    [query] = await embedder.embed_queries(["what did they plant in the garden?"])
    waited = time.perf_counter() - started
    # One lane: the query waited for all 600 texts (seconds on two cores).
    assert not bulk.done(), f"the batch finished first ({waited:.2f} s): nothing was measured"
    vectors = await bulk
    assert len(vectors) == len(bulk_texts)
    # The vectors do not depend on the lane (int8: one text per run either way).
    assert _same(query, (await embedder.embed_queries(["what did they plant in the garden?"]))[0])
    assert _same(vectors[7], (await embedder.embed([bulk_texts[7]]))[0])


async def test_a_few_passages_take_the_front_lane_too(
    embedder: SentenceTransformerEmbedder,
) -> None:
    bulk = asyncio.create_task(embedder.embed([f"bulk text {i} about sailing" for i in range(600)]))
    await asyncio.sleep(0.05)
    [added] = await embedder.embed(["Ann moved to Porto"])  # an addMemory
    assert not bulk.done()
    assert len(added) == embedder.dimensions
    await bulk


def _nice_of_this_thread() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


async def test_background_work_runs_on_a_lower_priority_thread() -> None:
    mine = _nice_of_this_thread()
    theirs = await in_background(_nice_of_this_thread)
    assert theirs == min(19, mine + BACKGROUND_NICE)
    assert _nice_of_this_thread() == mine  # the event loop's thread keeps its priority


def test_lowering_a_thread_leaves_the_others_alone() -> None:
    seen: list[int] = []

    def lowered() -> None:
        lower_this_thread(3)
        seen.append(_nice_of_this_thread())

    before = _nice_of_this_thread()
    thread = threading.Thread(target=lowered)
    thread.start()
    thread.join()
    assert seen == [min(19, before + 3)]
    assert _nice_of_this_thread() == before


def test_serve_hands_the_gil_over_sooner() -> None:
    before = sys.getswitchinterval()
    try:
        favour_requests()
        assert sys.getswitchinterval() == GIL_SWITCH_S < 0.005
    finally:
        sys.setswitchinterval(before)


def test_a_pool_started_from_a_background_thread_is_not_lowered_twice() -> None:
    # Threads inherit the nice value of the thread that starts them: the
    # encoder's pool, first used from the back lane, ran at 19, not 10.
    base = _nice_of_this_thread()
    seen: list[int] = []

    def inner() -> None:
        lower_this_thread()
        seen.append(_nice_of_this_thread())

    def outer() -> None:
        lower_this_thread()
        thread = threading.Thread(target=inner)
        thread.start()
        thread.join()

    thread = threading.Thread(target=outer)
    thread.start()
    thread.join()
    assert seen == [min(19, base + BACKGROUND_NICE)]


def test_after_bulk_work_no_thread_runs_below_the_background_priority(
    embedder: SentenceTransformerEmbedder,
) -> None:
    base = os.getpriority(os.PRIO_PROCESS, os.getpid())
    nices: list[int] = []
    for tid in os.listdir("/proc/self/task"):
        try:
            nices.append(os.getpriority(os.PRIO_PROCESS, int(tid)))
        except ProcessLookupError:
            continue  # the thread ended between the listing and the question
    assert max(nices) <= min(19, base + BACKGROUND_NICE), nices
