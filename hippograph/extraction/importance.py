"""Importance by transparent features, in [0, 1]; each feature is named and weighed here.

Note 001 keeps facts scoring at least 0.7. The features reward what makes a
statement worth remembering about a person (it is about the speaker, names
things, carries numbers or dates, states a preference or a plan, says enough)
and penalise small talk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FIRST_PERSON = re.compile(
    r"\b(i|i'm|i've|i'd|i'll|my|me|mine|we|our|us)\b|我|我们|我的", re.IGNORECASE
)
_PREFERENCE = re.compile(
    r"\b(love|loves|like|likes|enjoy|hate|prefer|favou?rite|allergic|want|plan|planning|"
    r"dream|goal|decided|started|quit|always|never|passion)\b|喜欢|讨厌|爱|想|打算|计划|过敏",
    re.IGNORECASE,
)
_PERSONAL = re.compile(
    r"\b(name|birthday|born|job|work|career|live|moved|married|wife|husband|son|daughter|kids|"
    r"children|mom|dad|mother|father|sister|brother|friend|dog|cat|pet|school|degree|health|"
    r"doctor|diagnosed|adopt\w*)\b|生日|工作|住|家|孩子|妈妈|爸爸|朋友|学校|健康",
    re.IGNORECASE,
)
_NUMBER_OR_DATE = re.compile(
    r"\d|\b(january|february|march|april|may|june|july|august|september|october|november|"
    r"december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|tomorrow|"
    r"last|next|ago)\b",
    re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"^\s*(hi|hey|hello|thanks|thank you|ok|okay|cool|wow|great|nice|lol|haha|sure|yeah|yes|no|"
    r"bye|good night|see you|you too|same here|awesome|amazing)\b[\s!.,?~]*$",
    re.IGNORECASE,
)
# A short message that opens with a greeting or thanks is small talk however it goes on.
_GREETING = re.compile(
    r"^\s*(hi|hey|hello|thanks|thank you|good (morning|afternoon|evening|night)|bye|see you|"
    r"你好|谢谢|早上好|晚安|再见)\b",
    re.IGNORECASE,
)
# Safety and identity (note 004's core): what must never fade from memory.
# A name or a birthday counts only as stated: "call me tomorrow" is a request
# and "thanks for my birthday card" a thanks, and a vital score would make
# either a core memory that never fades.
_DATE = (
    # May only capitalised: "my birthday may have been forgotten" names no date
    r"(?:\d|(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|(?-i:May)|june?|july?"
    r"|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b"
    r"|today\b|tomorrow\b|[一二三四五六七八九十]+月)"
)
_VITAL = re.compile(
    r"\b(allerg\w*|anaphyla\w*|intoleran\w*|asthma\w*|diabet\w*|epilep\w*|seizures?|"
    r"medications?|insulin|blood type|pregnan\w*|my name is|born on|emergency contact)\b"
    rf"|\bbirthday(?:'s|\s+is|\s+falls|\s+was|:)?(?:\s+(?:on|in))?(?:\s+the)?\s+{_DATE}"
    r"|\b(?:today|tomorrow) is my birthday\b"
    rf"|过敏|生日[是在]?\s*{_DATE}|我叫|我的名字|哮喘|糖尿病|癫痫|怀孕|血型",
    re.IGNORECASE,
)
# "Call me Liz": a name, capitalised (so read case-sensitively), and not a day.
_CALLED = re.compile(
    r"\b[Cc]all me (?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|"
    r"Tomorrow|Today|Tonight)\b)[A-Z][a-z]+"
)
# A vital statement scores at least this: above forgetting's promote_at (0.95),
# so the next pass makes it core and it never decays.
VITAL_SCORE = 0.96
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")


@dataclass(frozen=True, slots=True)
class ImportanceFeatures:
    """The features of a text and the weight each carries."""

    first_person: bool
    preference: bool
    personal: bool
    number_or_date: bool
    proper_name: bool
    length: float  # 0..1, saturating at 25 words
    small_talk: bool
    vital: bool = False  # safety or identity: allergies, health, names, birthdays

    @property
    def score(self) -> float:
        """The importance these features add up to, in [0, 1]."""
        value = (
            0.15
            + 0.15 * self.first_person
            + 0.2 * self.preference
            + 0.2 * self.personal
            + 0.1 * self.number_or_date
            + 0.1 * self.proper_name
            + 0.2 * self.length
            - 0.4 * self.small_talk
        )
        if self.vital:
            value = max(value, VITAL_SCORE)
        return round(min(1.0, max(0.0, value)), 4)


def features(text: str) -> ImportanceFeatures:
    """The importance features of ``text``."""
    words = len(re.findall(r"\w+", text))
    return ImportanceFeatures(
        first_person=bool(_FIRST_PERSON.search(text)),
        preference=bool(_PREFERENCE.search(text)),
        personal=bool(_PERSONAL.search(text)),
        number_or_date=bool(_NUMBER_OR_DATE.search(text)),
        proper_name=bool(_NAME.search(text)),
        length=min(1.0, words / 25),
        small_talk=bool(_SMALL_TALK.match(text))
        or words < 3
        or (words < 8 and bool(_GREETING.match(text))),
        vital=bool(_VITAL.search(text) or _CALLED.search(text)),
    )


def importance(text: str) -> float:
    """The importance of ``text`` in [0, 1]."""
    return features(text).score
