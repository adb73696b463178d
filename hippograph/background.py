"""Background work yields the CPU to interactive work.

Memorize embeds hundreds of texts at a time and extracts every unit while
searches embed one query and read the graph; on two cores a search waited
behind the batch and behind the extraction that held the event loop
(HYBRID p95 8.6 times its idle value during an import, bench/pressure.py).
Threads that run bulk work raise their own nice value, so the kernel gives
the cores to the threads that answer requests first and to bulk work
whatever is left: an idle machine still runs it at full speed. CPU-bound
steps of a job (an offline extraction, assembling a unit's records) run on
such a thread through :func:`in_background`, so the event loop stays free
to answer requests between them.

Linux schedules threads, not processes, so a thread can lower its own
priority without touching the rest of the process. Raising it again needs
privileges, which is why bulk work gets threads of its own rather than
lowering and raising a shared one. Elsewhere this does nothing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

# How often (seconds) a thread holding the GIL hands it over when another
# wants it; Python's default is 5 ms. A request's thread needs the GIL back
# after every await that waited on the graph, so behind a background thread
# it waited up to 5 ms each time. HYBRID p95 during an import, as a multiple
# of idle (bench/pressure.py, one machine, runs of one day): 3.2 and 3.9 at
# 5 ms; 2.5 and 2.2 at 1 ms; 1.9, 3.7 and 2.85 at 0.5 ms. Noisy, but below
# 5 ms every time, and the import's own rate did not change.
GIL_SWITCH_S = 0.0005

# CFS gives a nice-10 thread about a tenth of a nice-0 thread's share of a
# busy core, and all of an idle one.
BACKGROUND_NICE = 10


def favour_requests() -> None:
    """Tune this process for answering requests beside background work (``serve``)."""
    sys.setswitchinterval(GIL_SWITCH_S)


def lower_this_thread(increment: int = BACKGROUND_NICE) -> None:
    """Run the calling thread ``increment`` nice levels below the process (a thread initializer).

    Relative to the process's main thread, not to the calling thread: a
    thread inherits the nice value of the thread that starts it, and a pool
    started from a background thread would otherwise go lower still.
    """
    setpriority = getattr(os, "setpriority", None)
    if setpriority is None or not hasattr(threading, "get_native_id"):
        return
    tid = threading.get_native_id()
    try:
        target = min(19, os.getpriority(os.PRIO_PROCESS, os.getpid()) + increment)
        if os.getpriority(os.PRIO_PROCESS, tid) < target:
            setpriority(os.PRIO_PROCESS, tid, target)
    except OSError as exc:  # a sandbox that forbids it: run at the normal priority
        log.debug("could not lower the priority of thread %s: %s", tid, exc)


# One thread: the steps it runs are pure Python, which holds the GIL, so a
# second thread would add switching and no speed. Shared by the process, as
# its cores are.
_WORKER = ThreadPoolExecutor(
    max_workers=1, thread_name_prefix="background", initializer=lower_this_thread
)


async def in_background(function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``function(*args, **kwargs)`` on the background thread, awaited from the event loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_WORKER, functools.partial(function, *args, **kwargs))
