"""What a speaker said in an earlier call is found the same way for a small user
(one exact query for the call) and a large one (the vector index, per turn)."""

from __future__ import annotations

import pytest

from graph.store import GraphStore
from hippograph.extraction.restatements import Said
from hippograph.models import IndexedText, MemoryLevel, MemorySource, Sources
from hippograph.services.said_before import SaidBefore
from hippograph.settings import SearchSettings
from tests.support import T0, add_user, memory, unit_vector


def _said(speaker: str, words: str) -> str:
    return f"On 17 July 2023, {speaker} said: “{words}”"


@pytest.mark.parametrize("exact_scan_max", [2000, 0], ids=["exact", "index"])
async def test_an_earlier_statement_is_found_by_vector_speaker_and_words(
    store: GraphStore, exact_scan_max: int
) -> None:
    await add_user(store, "caro")
    kept: dict[str, str] = {}
    rows = [
        ("art", 1, _said("Caroline", "My art show is next month!"), MemorySource.EXTRACTION),
        ("mel", 2, _said("Melanie", "My art show is next month!"), MemorySource.EXTRACTION),
        ("api", 3, _said("Caroline", "I adopted a dog."), MemorySource.USER),
        ("faded", 4, _said("Caroline", "I love hiking."), MemorySource.EXTRACTION),
    ]
    for name, seed, content, source in rows:
        level = MemoryLevel.SUMMARY if name == "faded" else MemoryLevel.FULL
        record = memory("caro", content, source=source, level=level)
        await store.memories.add(record, IndexedText(unit_vector(seed), content), Sources())
        kept[name] = record.id
    for i in range(40):  # others' memories, which the index ranks among
        await add_user(store, f"u{i}")
        await store.memories.add(
            memory(f"u{i}", "x"), IndexedText(unit_vector(100 + i), "x"), Sources()
        )
    finder = SaidBefore(
        store.search, store.memories, lambda: T0, SearchSettings(exact_scan_max=exact_scan_max)
    )
    said = [
        Said("new1", "caro", "Caroline", "Next month: my art show!", unit_vector(1)),
        Said("new2", "caro", "Melanie", "My art show is next month!", unit_vector(1)),
        Said("new7", "caro", "Melanie", "Next month: my art show!", unit_vector(2)),
        Said("new3", "caro", "Caroline", "A gallery in Paris took my paintings!", unit_vector(1)),
        Said("new4", "caro", "Caroline", "I adopted a dog.", unit_vector(3)),  # not memorize's
        Said("new5", "caro", "Caroline", "I love hiking.", unit_vector(4)),  # faded
        Said(kept["art"], "caro", "Caroline", "My art show is next month!", unit_vector(1)),
        Said("new6", "nobody", "Caroline", "My art show is next month!", unit_vector(1)),
    ]
    found = await finder.earlier(said, threshold=0.96)
    # Melanie at cosine 1 to Caroline's words is not Caroline; new3 says
    # something else at the same cosine; the memory's own id is no repeat.
    assert found == {"new1": kept["art"], "new7": kept["mel"]}
