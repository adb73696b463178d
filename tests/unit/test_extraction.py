"""The pure extraction steps: segmentation, relative times, importance, keywords, offline extractor."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hippograph.adapters.offline_llm import OfflineExtractor
from hippograph.extraction.assemble import UnitContext, assemble, unit_messages
from hippograph.extraction.importance import VITAL_SCORE, features, importance
from hippograph.extraction.keywords import keywords
from hippograph.extraction.relative_time import resolve_relative_times
from hippograph.extraction.schema import ExtractionRequest, UnitMessage
from hippograph.extraction.segment import SegmentRules, segment
from hippograph.models import Message, Role

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def test_segment_cuts_on_time_gaps_topic_shifts_and_size() -> None:
    t = [MAY_8 + timedelta(minutes=i) for i in range(6)]
    t += [MAY_8 + timedelta(hours=5)]  # a long pause
    a, b = [1.0, 0.0], [0.0, 1.0]
    vectors = [a, a, a, a, b, b, b]
    units = segment(t, vectors, SegmentRules(min_size=3, max_size=12))
    assert units == [range(4), range(4, 6), range(6, 7)]
    capped = segment(t[:6], [a] * 6, SegmentRules(max_size=4))
    assert capped == [range(4), range(4, 6)]
    assert segment([], [], SegmentRules()) == []


def test_a_shift_needs_a_unit_of_min_size_first() -> None:
    a, b = [1.0, 0.0], [0.0, 1.0]
    times = [MAY_8] * 6
    # b right after the first a is no shift yet (a unit of one); after three a's it is
    assert segment(times, [a, b, a, a, a, b], SegmentRules(min_size=3)) == [
        range(5),
        range(5, 6),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I went to a support group yesterday.",
            "I went to a support group yesterday (7 May 2023).",
        ),
        ("We met last Friday", "We met last Friday (5 May 2023)"),
        ("two days ago and today", "two days ago (6 May 2023) and today (8 May 2023)"),
        ("the day before yesterday", "the day before yesterday (6 May 2023)"),
        ("I moved last year", "I moved last year (2022)"),
        ("see you next month", "see you next month (June 2023)"),
        ("我昨天去了公园", "我昨天 (7 May 2023)去了公园"),
        ("Two months ago I moved", "Two months ago (March 2023) I moved"),
        ("我3天前到了", "我3天前 (5 May 2023)到了"),
        ("last weekend", "last weekend (the weekend before 8 May 2023)"),
        ("nothing relative here", "nothing relative here"),
    ],
)
def test_relative_times_get_their_absolute_dates(text: str, expected: str) -> None:
    assert resolve_relative_times(text, MAY_8) == expected


def test_importance_rewards_personal_statements_and_penalises_small_talk() -> None:
    assert importance("Thanks!") < 0.2
    assert importance("Hey Mel! Good to see you!") < importance("I love painting sunsets.")
    personal = "My sister and I adopted a dog named Rex last March, I love him so much."
    assert importance(personal) >= 0.7
    found = features(personal)
    assert (found.first_person, found.preference, found.personal, found.number_or_date) == (
        True,
        True,
        True,
        True,
    )
    assert 0.0 <= importance("x" * 500) <= 1.0


@pytest.mark.parametrize(
    "text",
    [
        "I'm allergic to peanuts.",
        "My name is Caroline Smith and I live in Boston.",
        "Call me Liz, everyone does.",
        "My birthday is 3 May.",
        "Eve's birthday is on the 5th of June",
        "I was born on 4 July 1990.",
        "我的生日是5月3日",
        "My birthday is in May",
        "Today is my birthday!",
        "Birthday: May 3",
    ],
)
def test_safety_and_identity_are_vital(text: str) -> None:
    assert features(text).vital
    assert importance(text) == VITAL_SCORE


@pytest.mark.parametrize(
    "text",
    [
        # a request and a thanks name no one and no date: not core memories
        "Can you call me tomorrow after work?",
        "Can you call me Monday?",
        "Thanks so much for my birthday card!",
        "My birthday is coming up next week!",
        "I bought birthday decorations for the party",
        "谢谢你送我的生日礼物",
        "I think my birthday may have been forgotten",
    ],
)
def test_requests_and_thanks_are_not_vital(text: str) -> None:
    assert not features(text).vital
    assert importance(text) < 0.95  # under forgetting's promote_at


def test_keywords_prefer_repeated_specific_phrases() -> None:
    texts = [
        "I went to the LGBTQ support group again.",
        "The support group was so powerful.",
        "Melanie paints with watercolors.",
    ]
    found = keywords(texts, limit=3)
    assert found[0] == "support group"
    assert len(found) == 3
    assert all(word not in {"the", "was", "so"} for word in found)


async def test_offline_extractor_is_deterministic_and_structured() -> None:
    messages = tuple(
        UnitMessage(index=i, speaker=speaker, text=text, ts=MAY_8)
        for i, (speaker, text) in enumerate(
            [
                ("Caroline", "Hey Mel! Good to see you!"),
                ("Melanie", "Hi! How have you been?"),
                (
                    "Caroline",
                    "I went to a LGBTQ support group yesterday and I love how welcoming everyone was.",
                ),
                ("Caroline", "My name is Caroline Smith and I live in Boston."),
                ("Melanie", "Thanks!"),
            ]
        )
    )
    request = ExtractionRequest(messages=messages, users={"caro": "Caroline"})
    vectors = [[1.0, 0.0], [0.9, 0.1], [0.7, 0.3], [0.6, 0.4], [1.0, 0.0]]
    extractor = OfflineExtractor()
    first = await extractor.extract(request, vectors)
    assert first == await extractor.extract(request, vectors)
    assert "7 May 2023" in first.narrative
    assert first.narrative.startswith("On 8 May 2023, Caroline and Melanie talked")
    assert [e.user_id for e in first.episodes] == ["caro"]
    # One memory per informative message (greetings and thanks are dropped):
    # both state a personal detail, so each is a fact in Caroline's dated
    # words and not also an event that says the same again.
    assert sorted(f.message_indices[0] for f in first.facts) == [2, 3]
    assert {f.kind for f in first.facts} == {"semantic"}
    assert all(f.quoted and f.importance >= 0.7 for f in first.facts)
    assert first.facts[1].content == (
        "On 8 May 2023, Caroline said: “My name is Caroline Smith and I live in Boston.”"
    )
    assert {(p.attribute, p.value) for p in first.profile} == {
        ("name", "Caroline Smith"),
        ("city", "Boston"),
    }
    assert all(p.user_id == "caro" for p in first.profile)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved to Lisbon last month.", {("city", "Lisbon")}),
        ("My favourite pasta is actually ravioli!", {("favourite_pasta", "ravioli")}),
        ("My favourite painting is called Blue Rider.", {("favourite_painting", "Blue Rider")}),
        ("I live in Rio de Janeiro these days.", {("city", "Rio de Janeiro")}),
        ("I work as a nurse these days, at St Mary's.", {("job", "nurse")}),
        ("I moved to a new flat with my sister.", set()),  # no city named
        ("I moved to Boston and I love it here.", {("city", "Boston")}),
        ("I moved to Trinidad and Tobago in 2020.", {("city", "Trinidad and Tobago")}),
    ],
)
async def test_profile_values_stop_at_the_value(text: str, expected: set[tuple[str, str]]) -> None:
    message = UnitMessage(index=0, speaker="Sam", text=text, ts=MAY_8)
    request = ExtractionRequest(messages=(message,), users={"sam": "Sam"})
    extracted = await OfflineExtractor().extract(request, [[1.0, 0.0]])
    assert {(p.attribute, p.value) for p in extracted.profile} == expected


async def test_another_speakers_details_are_never_the_users_profile() -> None:
    # One user, Caroline: her friend's words are remembered for her, but
    # Melanie's city and job are not Caroline's, nor the assistant's name.
    said = [
        ("Melanie", "Great! I moved to Denver and I work as a nurse now."),
        ("assistant", "My name is Aria, nice to meet you."),
        ("Caroline", "I moved to Lisbon last month."),
    ]
    messages = tuple(
        UnitMessage(index=i, speaker=speaker, text=text, ts=MAY_8)
        for i, (speaker, text) in enumerate(said)
    )
    request = ExtractionRequest(messages=messages, users={"caro": "Caroline"})
    extracted = await OfflineExtractor().extract(request, [[1.0, 0.0]] * 3)
    assert {(p.user_id, p.attribute, p.value) for p in extracted.profile} == {
        ("caro", "city", "Lisbon")
    }
    assert any("Denver" in f.content for f in extracted.facts)  # still remembered as said


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        # a personal detail said in passing: a fact in Kevin's words, with the profile
        ("They look delicious, my favorite pasta is actually ravioli", {"semantic"}),
        ("The ravioli place on Main Street closes at nine.", {"event"}),
    ],
)
async def test_each_message_is_one_memory_a_fact_where_it_states_one(
    text: str, kinds: set[str]
) -> None:
    message = UnitMessage(index=0, speaker="Kevin", text=text, ts=MAY_8)
    request = ExtractionRequest(messages=(message,), users={"kevin": "Kevin"})
    extracted = await OfflineExtractor().extract(request, [[1.0, 0.0]])
    assert len(extracted.facts) == 1
    assert {f.kind for f in extracted.facts} == kinds
    assert extracted.facts[0].content == f"On 8 May 2023, Kevin said: “{text}”"


async def test_a_memory_s_period_is_read_on_the_speaker_s_clock() -> None:
    # 03:00 UTC on 9 May is 20:00 on 8 May for a speaker at -07:00: the text
    # is dated on their clock ("yesterday (7 May 2023)"), and so is its period.
    message = Message(
        "msg_1",
        "ses_1",
        "ann",
        "Ann",
        Role.USER,
        "I went to a support group yesterday.",
        datetime(2023, 5, 9, 3, tzinfo=UTC),
        1,
        utc_offset=-420,
    )
    request = ExtractionRequest(messages=unit_messages([message]), users={"ann": "Ann"})
    extraction = await OfflineExtractor().extract(request, [[1.0, 0.0]])
    context = UnitContext(
        messages=[message],
        vectors=[[1.0, 0.0]],
        before=None,
        user_names={"ann": "Ann"},
        group_id=None,
        source_type="conversation",
        learned_at=message.ts,
    )
    memories = [d.memory for d in assemble(extraction, context).memories]
    [said] = [m for m in memories if m.content.startswith("On 8 May 2023, Ann said:")]
    assert "yesterday (7 May 2023)" in said.content
    may_7 = (datetime(2023, 5, 7, tzinfo=UTC), datetime(2023, 5, 8, tzinfo=UTC))
    # the quote and the episode that retells it alike
    assert {(m.about_start, m.about_end) for m in memories} == {may_7}, memories
    assert said.created_at == message.ts  # the instant stays UTC's
