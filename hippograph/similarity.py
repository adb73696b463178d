"""Where an embedding model's cosines mean "a new topic" and "the same theme".

Cosines are not comparable across models: between two unrelated
conversation turns MiniLM gives about 0.3, e5-small about 0.8. The offline
pipeline cuts at three cosines, so each model declares its own
(``hippograph/adapters/model_catalog.py``) and the services read them
through the embedder, unless a setting overrides them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SimilarityScale:
    """One model's cut points, each a cosine on that model's scale."""

    # memorize: a turn whose cosine to the mean of the turns just before is
    # below this starts a new MemUnit (a topic shift)
    topic_shift: float
    # reflection: a fact whose cosine to a theme's centre reaches this joins it
    theme: float
    # memorize: a speaker's turn this close to one of their earlier turns (of
    # the same call, or a memory of an earlier one) may say the same again
    # (another source, not a new memory; restatements.says_again decides too)
    restatement: float


# all-MiniLM-L6-v2's, the values the settings had before models were a choice:
# what a local model folder, which declares nothing, is cut at.
MINILM_SCALE = SimilarityScale(topic_shift=0.2, theme=0.45, restatement=0.9)
