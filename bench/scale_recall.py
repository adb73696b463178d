"""LoCoMo recall among the search benchmark's many memories: what scale's shortcuts cost.

At 100,000 memories the search takes shortcuts that small users never meet:
the vector index instead of an exact scan, common query terms left out of the
keyword query (``hippograph.services.common_terms``). Their cost in quality
is measured here with LoCoMo's own questions and evidence: every memory of
``bench.search_latency`` begins with one LoCoMo turn (past the 788 turns
themselves, followed by the start of another), so a hit stands for the turn
it begins with, and recall@k is the official metric over those turns. Each
turn is there in about 127 variants at 100k, so the figures are lower than
LoCoMo's own and only comparable between runs of this benchmark.
"""

from __future__ import annotations

from typing import Any

from bench.common import locomo_evidence, locomo_turns
from hippograph.auth import Principal
from hippograph.benchmark.recall import mean, recall_at_k
from hippograph.modes import SearchMode
from hippograph.scoring import SearchMethod
from hippograph.services.search import SearchRequest, SearchService

KS = (5, 10, 25)
# Enough hits for 25 distinct turns in most questions, at the default pool.
TOP_K = 50


async def evidence_recall(
    search: SearchService, principal: Principal, user_id: str, texts: list[str]
) -> dict[str, dict[str, float]]:
    """Recall@k per method of LoCoMo's questions among ``user_id``'s memories ``texts``."""
    turns = locomo_turns()
    turn_of = {text: turns[i % len(turns)][0] for i, text in enumerate(texts)}
    asked = locomo_evidence()
    report: dict[str, dict[str, float]] = {}
    for method in SearchMethod:
        recalls: dict[int, list[float]] = {k: [] for k in KS}
        for question, evidence in asked:
            request = SearchRequest(
                user_id, question, TOP_K, method=method, mode=SearchMode.NORMAL, touch=False
            )
            result = await search.search(principal, request)
            ranked = [[turn_of[h.memory.content]] for h in result.hits if h.memory is not None]
            for k in KS:
                recalls[k].append(recall_at_k(ranked, evidence, k))
        report[method.value] = {f"recall@{k}": round(mean(v), 3) for k, v in recalls.items()}
    return report


def describe(report: dict[str, Any]) -> str:
    """One line per method."""
    return "\n".join(
        f"  {method:8} " + "  ".join(f"{name} {value}" for name, value in figures.items())
        for method, figures in report.items()
    )
