"""Pruning of query terms common in a large user's memories."""

from __future__ import annotations

import asyncio

from hippograph.services.common_terms import CommonTerms, prune, sample_of

TEXTS = [
    "caroline said support group",
    "caroline said paint lake",
    "melanie said paint sunrise",
    "caroline said adopt dog",
    "melanie said camp beach",
]


def test_document_frequency_counts_each_memory_once() -> None:
    sample = sample_of([*TEXTS, "paint paint paint"])
    assert sample.documents == 6
    assert sample.share("paint") == 3 / 6
    assert sample.share("unknown") == 0.0


def test_common_terms_are_dropped_and_the_rarest_kept_when_all_are_common() -> None:
    sample = sample_of(TEXTS)  # said 1.0, caroline 0.6, paint 0.4, melanie 0.4, dog 0.2
    assert prune(["caroline", "dog", "paint"], sample, 0.5) == ["dog", "paint"]
    assert prune(["said", "caroline", "melanie"], sample, 0.3) == ["caroline", "melanie"]
    assert prune(["said"], sample, 0.3) == ["said"]


async def test_without_a_budget_every_term_stays_and_samples_never_block() -> None:
    calls: list[tuple[str, int]] = []

    async def sample(user_id: str, limit: int) -> list[str]:
        calls.append((user_id, limit))
        return TEXTS

    common = CommonTerms(sample, share=0.5, sample_size=50, ttl_s=60)
    terms = ["caroline", "dog"]
    # No term budget in the plan (a small user): no sample is even taken.
    assert common.prune("ann", terms, None) == terms
    await asyncio.sleep(0)
    assert calls == []
    # A budget but no sample yet: every term now, the sample is taken behind.
    assert common.prune("ann", terms, 1.0) == terms
    await asyncio.sleep(0)
    assert calls == [("ann", 50)]
    assert common.prune("ann", terms, 1.0) == ["dog"]


def test_the_commonest_terms_go_while_their_postings_exceed_the_budget() -> None:
    sample = sample_of(TEXTS)  # said 1.0, caroline 0.6, paint 0.4, melanie 0.4, dog 0.2
    terms = ["caroline", "paint", "dog", "melanie"]  # 1.6 of the memories' postings in all
    assert prune(terms, sample, 1.0, budget_share=1.6) == terms
    # The commonest goes first: caroline, leaving 1.0 ...
    assert prune(terms, sample, 1.0, budget_share=1.0) == ["paint", "dog", "melanie"]
    # ... then paint, the later of two ties, leaving 0.6.
    assert prune(terms, sample, 1.0, budget_share=0.6) == ["dog", "melanie"]
    # Never fewer than two, however small the budget.
    assert prune(terms, sample, 1.0, budget_share=0.01) == ["dog", "melanie"]
    # The share rule applies first: said is gone before the budget is counted.
    assert prune(["said", "dog", "paint", "melanie"], sample, 0.5, 1.0) == [
        "dog",
        "paint",
        "melanie",
    ]


async def test_the_plans_budget_share_prunes_the_sampled_terms() -> None:
    async def sample(user_id: str, limit: int) -> list[str]:
        return TEXTS

    common = CommonTerms(sample, share=1.0, sample_size=50, ttl_s=60)
    terms = ["caroline", "paint", "dog"]
    common.prune("ann", terms, 0.6)  # takes the sample behind
    await asyncio.sleep(0)
    # A budget of 300 postings among 500 memories: caroline 300, paint 200,
    # dog 100 postings; 600 > 300.
    assert common.prune("ann", terms, 300 / 500) == ["paint", "dog"]
    # Among 200 memories: 240 postings in all, within the budget.
    assert common.prune("ann", terms, 300 / 200) == terms


def test_without_a_budget_many_moderate_terms_all_stay() -> None:
    sample = sample_of(TEXTS)  # caroline 0.6, paint 0.4, melanie 0.4, dog 0.2: 1.6 in all
    terms = ["caroline", "paint", "melanie", "dog"]
    assert prune(terms, sample, 1.0) == terms
