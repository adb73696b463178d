"""Turn memories: one memory per message, indexed with its conversational context.

This is the ``turn`` granularity: the simplest memory a conversation yields,
and the baseline every richer pipeline must beat. A turn is often meaningless
alone ("Yes, last Friday!"), so each is indexed with the turn before it in
the same session: its keyword text is both turns. Its vector may blend the
turn's own embedding with that of the pair (``CONTEXT_WEIGHT``), but by
default it is the turn's own: search's context stage lends a turn its
neighbours' relevance instead, which held on real chats where the blend did
not (docs/retrieval.md). Its content stays the turn alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hippograph.models import Message
from hippograph.vector_math import unit

# How much of the pair (turn before + turn) goes into a turn's vector. At
# turn granularity, with search's context stage at its default, 0 gave
# recall@10 0.825 / 0.601 (LoCoMo / REALTALK dev, HYBRID) and 0.5 gave
# 0.820 / 0.591; at memory granularity 0.824 / 0.594 and 0.826 / 0.592.
CONTEXT_WEIGHT = 0.0


@dataclass(frozen=True, slots=True)
class TurnText:
    """What one turn's memory says, and the text it is indexed with."""

    content: str
    context: str


def turn_content(message: Message) -> str:
    """``<speaker> said, "<text>"``: who said it is part of what a turn means."""
    return f'{message.speaker} said, "{message.content}"'


def turn_texts(messages: Sequence[Message]) -> list[TurnText]:
    """Content and context of each message, in the order given.

    The context of a turn is the previous turn of the same session (by
    sequence number) followed by the turn itself.
    """
    previous: dict[tuple[str, int], Message] = {(m.session_id, m.seq): m for m in messages}
    texts = []
    for message in messages:
        content = turn_content(message)
        before = previous.get((message.session_id, message.seq - 1))
        context = f"{turn_content(before)} {content}" if before else content
        texts.append(TurnText(content=content, context=context))
    return texts


def blend(
    own: Sequence[float], context: Sequence[float], weight: float = CONTEXT_WEIGHT
) -> list[float]:
    """``own + weight·context``, normalised to unit length."""
    return unit([a + weight * b for a, b in zip(own, context, strict=True)])
