"""Search modes (note 002): what a normal search sees, and when to look further back.

NORMAL sees memories that are still clear (levels full and summary); REVIEW
sees every level down to archived traces; AUTO picks REVIEW when the query
asks about the past ("我以前说过什么？", "what did I use to like?").
"""

from __future__ import annotations

import re
from enum import StrEnum

from hippograph.errors import InvalidInput
from hippograph.models import MemoryLevel


class SearchMode(StrEnum):
    """Which levels a search may return."""

    NORMAL = "normal"
    REVIEW = "review"
    AUTO = "auto"


NORMAL_LEVELS = (MemoryLevel.FULL, MemoryLevel.SUMMARY)
REVIEW_LEVELS = tuple(MemoryLevel)

# Note 002's trigger words, and their English counterparts. Deliberately no
# bare "before" or "earlier": they are as often about the future or ordering.
_CHINESE_CUES = (
    "回顾",
    "以前",
    "过去",
    "历史",
    "很久以前",
    "曾经",
    "早期",
    "当初",
    "那时候",
    "从前",
)
_ENGLISH_CUES = re.compile(
    r"\b(back then|used to|remember when|do you remember|in the past|long ago|years ago|"
    r"a while ago|way back|once upon|history of|did i ever|have i ever|previously|"
    r"look(?:ing)? back|used to be|in the old days|formerly)\b",
    re.IGNORECASE,
)


def asks_about_the_past(query: str) -> bool:
    """Whether ``query`` is a question about the past (AUTO's test)."""
    return any(cue in query for cue in _CHINESE_CUES) or bool(_ENGLISH_CUES.search(query))


def resolve_mode(
    mode: SearchMode, query: str, levels: tuple[MemoryLevel, ...] | None = None
) -> SearchMode:
    """NORMAL or REVIEW: AUTO decided by the query, or by ``levels`` that name one
    NORMAL does not see (a filter for TRACE memories asks to review).

    ``InvalidInput`` on ``filter.levels`` when an explicit NORMAL sees none of them:
    dropped, the filter would read as "every level NORMAL sees".
    """
    if mode is SearchMode.AUTO:
        hidden = levels is not None and any(v not in NORMAL_LEVELS for v in levels)
        past = asks_about_the_past(query)
        return SearchMode.REVIEW if past or hidden else SearchMode.NORMAL
    if levels and not levels_for(mode, levels):
        names = ", ".join(v.name for v in levels)
        raise InvalidInput(
            f"mode NORMAL shows FULL and SUMMARY memories, not {names}: use mode REVIEW or AUTO",
            "filter.levels",
        )
    return mode


def levels_for(mode: SearchMode, wanted: tuple[MemoryLevel, ...] | None) -> tuple[MemoryLevel, ...]:
    """The levels a search in ``mode`` returns, narrowed by an explicit filter."""
    allowed = NORMAL_LEVELS if mode is SearchMode.NORMAL else REVIEW_LEVELS
    if wanted is None:
        return allowed
    return tuple(level for level in allowed if level in wanted)
