"""Small talk: a message with nothing to remember once its courtesies are set aside.

Greetings, thanks, agreement, praise ("That looks amazing!") and "how are
you" carry no fact, yet a chat says them every day: stored as events they
were a tenth of all memories, near-duplicates of each other, and took
result slots from what was said. They stay as messages (provenance and a
session's ``messages`` still show them); they do not become memories.

A message is small talk when, with stop words, these courtesies and the
name it is addressed to ("Hey Kate", "What about you Kate?") set aside, no
word is left, and it is short. A number, a date or any other word makes it
something to remember.
"""

from __future__ import annotations

import re

from hippograph.text import STOP_WORDS

_COURTESY_WORDS = """
    hi hey hello hiya heya morning afternoon evening night bye goodbye goodnight later
    thanks thank thx ty appreciate appreciated welcome pleasure
    yes yeah yep yup sure ok okay alright right true exactly absolutely totally definitely
    indeed agree agreed course certainly
    amazing awesome great good nice cool wonderful beautiful lovely fantastic fun incredible
    spectacular perfect glad happy interesting wow brilliant gorgeous cute sweet fab fabulous
    super excellent impressive stunning delightful neat
    sounds sound looks look seems seem doing going hear hearing talking talk chatting chat
    asking asked ask feel well fine today tonight tomorrow soon see catch day new much lot lots
    also fully completely really truly
    haha hahaha lol lmao omg aww aw hmm ah oh wow yay whoa
"""
_COURTESIES = frozenset(_COURTESY_WORDS.split())
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_OTHER_SCRIPT = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_MOST_WORDS = 14


def is_small_talk(text: str) -> bool:
    """Whether ``text`` is only courtesies (see the module docstring)."""
    if any(ch.isdigit() for ch in text) or _OTHER_SCRIPT.search(text):
        return False  # the courtesies listed are English
    words = _WORD.findall(text.replace("’", "'"))
    if not words or len(words) > _MOST_WORDS:
        return False
    left = [w for w in words if (low := w.lower()) not in STOP_WORDS and low not in _COURTESIES]
    # What is left may only be the name it is addressed to: one capitalised word.
    return not left or (len(left) == 1 and left[0][0].isupper() and left[0] != words[0])
