"""Reflection at scale: provenance walks in a 100k-memory graph, and a reflect run over 10k facts.

1. Provenance: one user with ``--facts`` facts, each derived from a message,
   reflected (through the real reflect write, so SUMMARIZES edges and
   consolidation are the production ones) into level-1 reflections of ten
   facts and level-2 reflections of ten level-1 reflections; then
   ``provenance(level-2 reflection, depth 4, DOWN)`` (reflection → 10
   reflections → 100 facts → 100 messages) timed through the service.
   Vectors are random: a walk never reads them.
2. Reflect: another user with ``--pending`` unconsolidated semantic facts
   (LoCoMo turns as text, each embedded once, repeated with a little noise
   to reach the count); one reflect run: seconds, reflections, facts covered.

    python -m bench.reflection [--facts 90000] [--pending 10000] [--graph G] [--json]

``--graph`` chooses the server (the embedded ArcadeDB or a Neo4j release,
see ``bench.graphs``); ``--pending 0`` skips the reflect run.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench import graphs
from bench.common import (
    Report,
    locomo_turn_texts,
    machine,
    memory_at,
    percentiles,
    report_cli,
    timed_ms,
)
from bench.graphs import open_graph
from hippograph.clock import utc_now
from hippograph.ids import IdKind, derived_id
from hippograph.models import (
    Direction,
    IndexedText,
    MemoryKind,
    Message,
    Role,
    Sources,
)
from hippograph.reflection import reflection_id
from hippograph.runtime import Runtime
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.settings import ReflectionSettings, Settings

BATCH = 1000


def _unit(rng: np.random.Generator, dimensions: int) -> list[float]:
    v = rng.standard_normal(dimensions)
    return [float(x) for x in v / np.linalg.norm(v)]


async def build_tree(runtime: Runtime, facts: int) -> list[str]:
    """The provenance graph; returns the level-2 reflection ids."""
    services, store = runtime.services, runtime.connection.store
    dims = runtime.embedder.dimensions
    rng = np.random.default_rng(7)
    now = utc_now()
    await services.users.create_user(SETTINGS_ADMIN, "tree", "Tree")
    fact_ids: list[str] = []
    for start in range(0, facts, BATCH):
        # A conversation of a thousand messages per session, as a long chat would be.
        session = await services.users.create_session(SETTINGS_ADMIN, "tree", f"chat {start}")
        count = min(BATCH, facts - start)
        messages = [
            Message(
                id=derived_id(IdKind.MESSAGE, session.id, str(start + i)),
                session_id=session.id,
                user_id="tree",
                speaker="Tree",
                role=Role.USER,
                content=f"message {start + i}",
                ts=now,
                seq=0,
            )
            for i in range(count)
        ]
        await store.messages.append(session.id, messages)
        items = []
        for i, message in enumerate(messages):
            memory = memory_at("tree", MemoryKind.SEMANTIC, f"fact {start + i}", 0.8, now)
            indexed = IndexedText(embedding=_unit(rng, dims), search_text=f"fact {start + i}")
            items.append((memory, indexed, Sources(message_ids=(message.id,))))
            fact_ids.append(memory.id)
        await store.memories.add_many(items)
    level1 = await _reflect_in_tens(runtime, fact_ids, rng, now)
    return await _reflect_in_tens(runtime, level1, rng, now)


async def _reflect_in_tens(
    runtime: Runtime, ids: list[str], rng: np.random.Generator, now: Any
) -> list[str]:
    made: list[str] = []
    dims = runtime.embedder.dimensions
    for start in range(0, len(ids), BATCH):
        items = []
        for group_start in range(start, min(start + BATCH, len(ids)), 10):
            group = ids[group_start : group_start + 10]
            content = f"reflection over {len(group)}"
            memory = memory_at(
                "tree", MemoryKind.REFLECTION, content, 0.9, now, id=reflection_id("tree", group)
            )
            items.append((memory, IndexedText(_unit(rng, dims), "reflection"), group))
            made.append(memory.id)
        await runtime.connection.store.reflection.write(items)
    return made


async def time_walks(runtime: Runtime, roots: list[str], walks: int) -> dict[str, Any]:
    """p50/p95 of depth-4 DOWN walks from random level-2 reflections."""
    rng = random.Random(11)
    drawn = [rng.choice(roots) for _ in range(walks)]
    samples, found = await timed_ms(
        lambda root: runtime.services.provenance.provenance(
            SETTINGS_ADMIN, root, 4, Direction.DOWN
        ),
        drawn,
        roots[:20],  # warm-up
    )
    sizes = [len(walk.nodes) if walk else 0 for walk in found]
    return {"latency_ms": percentiles(samples), "nodes_per_walk": round(sum(sizes) / len(sizes))}


async def reflect_run(runtime: Runtime, pending: int) -> dict[str, Any]:
    """One reflect run over ``pending`` unconsolidated facts of one user."""
    services, store = runtime.services, runtime.connection.store
    texts = locomo_turn_texts()
    vectors = np.asarray(await runtime.embedder.embed(texts), dtype=np.float32)
    rng = np.random.default_rng(3)
    now = utc_now() - timedelta(days=1)
    await services.users.create_user(SETTINGS_ADMIN, "facts", "Caroline")
    for start in range(0, pending, BATCH):
        items = []
        for i in range(start, min(start + BATCH, pending)):
            noise = rng.normal(0.0, 0.02, size=vectors.shape[1])
            base = vectors[i % len(texts)] + noise
            content = f"{texts[i % len(texts)]} (note {i // len(texts)})"
            memory = memory_at("facts", MemoryKind.SEMANTIC, content, 0.75, now)
            indexed = IndexedText((base / np.linalg.norm(base)).tolist(), memory.content)
            items.append((memory, indexed, Sources()))
        await store.memories.add_many(items)
    started = time.perf_counter()
    outcome = await services.reflection.reflect("facts", force=True)  # as of now
    seconds = time.perf_counter() - started
    return {
        "pending_facts": pending,
        "seconds": round(seconds, 2),
        "reflections": outcome.reflections,
        "facts_consolidated": outcome.consolidated,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Both measurements on a fresh store."""
    directory = Path(tempfile.mkdtemp(prefix="hippograph-reflection-"))
    with open_graph(args.graph, directory) as graph:
        settings = Settings(
            graph=graph.settings,
            reflection=ReflectionSettings(sweep_interval_s=0, max_pending=max(20000, args.pending)),
        )
        runtime = await Runtime.start(settings)
        try:
            started = time.perf_counter()
            roots = await build_tree(runtime, args.facts)
            built = time.perf_counter() - started
            total = await runtime.connection.store.memories.count()
            walks = await time_walks(runtime, roots, args.walks)
            reflect = await reflect_run(runtime, args.pending) if args.pending else None
        finally:
            await runtime.stop()
    return {
        "graph": graph.described(),
        "memories": total,
        "build_seconds": round(built, 1),
        "provenance_depth4": walks,
        "reflect": reflect,
        "machine": machine(),
    }


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facts", type=int, default=90000)
    parser.add_argument("--pending", type=int, default=10000)
    parser.add_argument("--walks", type=int, default=200)
    graphs.add_argument(parser)
    report_cli(parser, run, show)


def show(report: Report, args: argparse.Namespace) -> None:
    """The provenance walk's latency, then the reflect pass (when it ran)."""
    walk = report["provenance_depth4"]
    print(
        f"{report['memories']} memories (built in {report['build_seconds']} s); "
        "provenance depth 4: "
        f"p50 {walk['latency_ms']['p50']} ms, p95 {walk['latency_ms']['p95']} ms, "
        f"{walk['nodes_per_walk']} nodes per walk"
    )
    r = report["reflect"]
    if r is None:
        return
    print(
        f"reflect over {r['pending_facts']} facts: {r['seconds']} s, {r['reflections']} "
        f"reflections covering {r['facts_consolidated']} facts"
    )


if __name__ == "__main__":
    main()
