"""Counts in words for what a command prints: one of a thing singular, any other number plural."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for one (``1 message``, ``2 messages``, ``0 messages``).

    ``plural`` is for nouns whose plural is not the noun and an ``s``
    (``counted(n, "memory", "memories")``).
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
