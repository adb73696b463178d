"""A periodic sweep outlives its failures: an expected one is a line, anything else a traceback."""

from __future__ import annotations

import asyncio
import logging

import pytest

from hippograph.errors import Unavailable
from hippograph.runtime import sweep_forever


async def test_a_sweep_goes_on_after_failures_and_logs_an_expected_one_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    outcomes: list[BaseException | None] = [
        Unavailable("the graph cannot be reached"),
        RuntimeError("a bug"),
        None,
    ]
    done = asyncio.Event()

    async def sweep() -> None:
        outcome = outcomes.pop(0) if outcomes else None  # then it succeeds until cancelled
        if outcome is not None:
            raise outcome
        done.set()

    caplog.set_level(logging.WARNING, logger="hippograph.runtime")
    task = asyncio.create_task(sweep_forever("lapsed lease", sweep, 0.01))
    try:
        await asyncio.wait_for(done.wait(), 5)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()
    expected, unexpected = caplog.records
    assert expected.getMessage() == (
        "the lapsed lease sweep failed: the graph cannot be reached; trying again in 0.01s"
    )
    assert (expected.levelno, expected.exc_info) == (logging.WARNING, None)
    assert unexpected.getMessage() == "the lapsed lease sweep failed; trying again next time"
    assert unexpected.levelno == logging.ERROR
    assert unexpected.exc_info is not None
