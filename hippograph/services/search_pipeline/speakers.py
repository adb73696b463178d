"""The query vector: the query with its speakers' names weighed down.

Every turn's vector says who spoke, and turns that greet or answer someone
name them, so a question naming a person sat nearest to the turns that
address them, whatever they were about; stripped of the names, "Where is Emi
going?" matched the other speaker's trips as well as hers. The mean of
both, in ``speaker_name_weight``'s shares, keeps the person without letting
the name decide (``hippograph/query_names.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hippograph.ports import Embedder
from hippograph.query_names import without_names
from hippograph.vector_math import unit


@dataclass(frozen=True, slots=True)
class QueryTexts:
    """What is embedded: the query without the names and with them, and the latter's share."""

    stripped: str
    named: str
    weight: float


def needs_names(weight: float) -> bool:
    """Whether the speakers' names are needed at all (a weight of 1 keeps the query as is)."""
    return weight < 1


def plan(query: str, names: Sequence[str], weight: float) -> QueryTexts:
    """The texts to embed for ``query``, given the speakers' ``names``."""
    stripped = without_names(query, list(names)) if needs_names(weight) else query
    return QueryTexts(stripped, query, weight)


async def fetch(embedder: Embedder, texts: QueryTexts) -> list[float]:
    """The query vector: one embedding when the names change nothing or one side has
    all the weight, else the weighted mean of both, made unit length again."""
    if texts.stripped == texts.named or texts.weight >= 1:
        [vector] = await embedder.embed_queries([texts.named])
        return vector
    if texts.weight <= 0:
        [vector] = await embedder.embed_queries([texts.stripped])
        return vector
    without, named = await embedder.embed_queries([texts.stripped, texts.named])
    w = texts.weight
    return unit([(1 - w) * a + w * b for a, b in zip(without, named, strict=True)])
