"""Query terms too common in a user's memories to be worth a full-text lookup.

The full-text index (ArcadeDB's FULL_TEXT, Lucene on Neo4j) walks the
posting list of every query term, so its cost grows with the term's document
frequency: on 100,000 memories where a speaker's name is in half of them, that
one term costs more than everything else in the search. Its BM25 weight is
near zero for the same reason (IDF ≈ log 2). So, for a large user:

1. a term found in more than ``share`` of a sample of their memories is
   dropped from the keyword query;
2. then, while the terms left would still walk more than ``posting_budget``
   postings (estimated from the sample), the most common of them is dropped:
   five ordinary words that each sit in a tenth of the memories cost as much
   as one in half of them (measured on ArcadeDB at 100,000 memories: about
   1 ms per thousand postings, so a 35,000-posting question took 30–60 ms),
   and the least frequent terms are the ones BM25 weighs most.

When every term is too common, the rarest two stay, and the budget never
leaves fewer than two. The sample is cached per user and refreshed behind the
request (``Refreshed``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from hippograph.services.refreshed import Refreshed

_KEEP_AT_LEAST = 2


@dataclass(frozen=True, slots=True)
class TermSample:
    """Document frequencies of terms in a sample of one user's memories."""

    documents: int
    frequencies: Counter[str]

    def share(self, term: str) -> float:
        """The fraction of the sampled memories containing ``term``."""
        return self.frequencies[term] / self.documents if self.documents else 0.0


def sample_of(texts: Sequence[str]) -> TermSample:
    """The term sample of some memories' ``search_text`` (space-separated tokens)."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(text.split()))
    return TermSample(documents=len(texts), frequencies=counts)


def prune(
    terms: Sequence[str], sample: TermSample, share: float, budget_share: float = math.inf
) -> list[str]:
    """``terms`` worth a lookup, in their order.

    Terms in more than ``share`` of the sample go (when all are, the rarest
    two stay); then, while more than two are left and their shares add up to
    more than ``budget_share`` (the posting budget as a fraction of the
    user's memories), the most common of them goes.
    """
    rarest_first = sorted(set(terms), key=lambda t: (sample.share(t), t))
    kept = [t for t in rarest_first if sample.share(t) <= share] or rarest_first[:_KEEP_AT_LEAST]
    walked = sum(sample.share(t) for t in kept)
    while len(kept) > _KEEP_AT_LEAST and walked > budget_share:
        walked -= sample.share(kept.pop())
    return [t for t in terms if t in kept]


class CommonTerms:
    """Per-user term samples, cached, and the pruning of query terms with them."""

    def __init__(
        self,
        sample: Callable[[str, int], Awaitable[list[str]]],
        *,
        share: float,
        sample_size: int,
        ttl_s: float,
    ) -> None:
        self._share = share

        async def take(user_id: str) -> TermSample:
            return sample_of(await sample(user_id, sample_size))

        self._samples: Refreshed[str, TermSample] = Refreshed(take, ttl_s)

    def prune(self, user_id: str, terms: Sequence[str], budget_share: float | None) -> list[str]:
        """The terms worth looking up for ``user_id``.

        ``budget_share`` is the plan's term budget (``KeywordPlan.term_budget``):
        None keeps every term without reading a sample (small users, whose
        lookups are cheap). A user with no sample yet keeps every term too,
        while the sample is taken behind this request: a search never waits
        for it.
        """
        if budget_share is None:
            return list(terms)
        sample = self._samples.peek(user_id)
        if sample is None:
            return list(terms)
        return prune(terms, sample, self._share, budget_share)
