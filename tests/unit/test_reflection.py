"""The reflection rule, theme grouping and ids, by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hippograph.reflection import (
    TOPIC_LIMIT,
    PendingFact,
    ReflectionRequest,
    ReflectionRules,
    is_due,
    offline_summary,
    one_per_theme,
    reflection_id,
    theme_of,
    themes,
)

NOW = datetime(2024, 5, 1, 12, tzinfo=UTC)
RULES = ReflectionRules()


def fact(
    id_: str,
    importance: float,
    vector: list[float] | None = None,
    *,
    content: str | None = None,
    kind: str = "semantic",
    topic: str | None = None,
) -> PendingFact:
    """A pending fact (``fact <id>`` and a vector of one dimension unless given)."""
    return PendingFact(
        id=id_,
        content=f"fact {id_}" if content is None else content,
        importance=importance,
        vector=[1.0] if vector is None else vector,
        kind=kind,
        topic=topic,
    )


def test_due_needs_importance_facts_and_a_cooled_down_user() -> None:
    five = [fact(str(i), 0.9, [1.0, 0.0]) for i in range(5)]  # 4.5
    assert is_due(five, None, NOW, RULES)
    assert not is_due(five[:4], None, NOW, RULES)  # 3.6 < 4.0
    assert not is_due(
        [fact("a", 1.0, [1.0, 0.0])], None, NOW, ReflectionRules(min_importance_sum=1)
    )
    recent = NOW - timedelta(minutes=30)
    assert not is_due(five, recent, NOW, RULES)
    assert is_due(five, recent, NOW, RULES, force=True)
    assert is_due(five, NOW - timedelta(hours=1), NOW, RULES)


def test_facts_group_by_theme_and_singletons_wait() -> None:
    facts = [
        fact("a1", 0.9, [1.0, 0.05, 0.0]),
        fact("a2", 0.8, [0.95, 0.1, 0.0]),
        fact("b1", 0.9, [0.0, 1.0, 0.1]),
        fact("b2", 0.7, [0.1, 0.9, 0.0]),
        fact("c1", 0.9, [0.0, 0.0, 1.0]),  # alone: no reflection yet
    ]
    groups = themes(facts, RULES)
    assert [[f.id for f in g] for g in groups] == [["a1", "a2"], ["b1", "b2"]]
    assert themes(list(reversed(facts)), RULES) == groups  # order-independent


def test_a_full_theme_starts_another() -> None:
    same = [fact(f"f{i}", 0.8, [1.0, 0.0]) for i in range(5)]
    groups = themes(same, ReflectionRules(max_facts_per_reflection=3))
    assert [len(g) for g in groups] == [3, 2]


def test_an_earlier_reflection_joins_the_theme_its_new_facts_form() -> None:
    # Each new fact is 15 degrees either side of the theme's centre, the
    # earlier reflection 34 degrees off it (cosines 0.80 to each fact, 0.83 to
    # the centre): seeding a group of its own, it would keep the facts out.
    threshold = ReflectionRules(cluster_threshold=0.82)
    c, s, phi = 0.966, 0.259, 0.829
    new = [fact("m2", 0.9, [c, s, 0.0]), fact("m3", 0.9, [c, -s, 0.0])]
    for earlier_id in ("m0", "m9"):  # its hash id sorts before the facts' or after
        earlier = fact(
            earlier_id,
            0.9,
            [phi, 0.0, (1 - phi * phi) ** 0.5],
            content="What Ann has shared about climbing: …",
            kind="reflection",
            topic="climbing",
        )
        groups = themes([earlier, *new], threshold)
        assert [[f.id for f in g] for g in groups] == [sorted([earlier_id, "m2", "m3"])]


def test_reflection_ids_depend_on_the_facts_only() -> None:
    assert reflection_id("ann", ["m2", "m1"]) == reflection_id("ann", ["m1", "m2"])
    assert reflection_id("ann", ["m1", "m2"]) != reflection_id("ann", ["m1", "m3"])
    assert reflection_id("ann", ["m1"]).startswith("mem_")


def test_offline_summary_names_the_theme_and_the_facts() -> None:
    summary = offline_summary(
        ReflectionRequest(
            user_name="Ann",
            facts=["Ann drinks flat white coffee.", "Ann roasts coffee beans at home."],
        )
    )
    assert summary.content.startswith("What Ann has shared about coffee")
    assert "Ann roasts coffee beans at home" in summary.content
    assert summary.topic.startswith("coffee")


def test_a_theme_reads_as_a_person_would_name_it() -> None:
    facts = [
        "Ann: My favorite one is the blue trail, I love it.",
        "Ann: I love climbing at Fontainebleau, it is my favorite place.",
        "Ann: One day I want to climb in the Alps.",
    ]
    topic = theme_of(facts, "Ann")
    assert topic
    assert not set(topic.replace(" and ", " ").split()) & {"one", "favorite", "love"}
    assert "," not in topic  # at most two phrases, not a keyword list
    said = " ".join(facts).lower()
    assert all(word in said for word in topic.replace(" and ", " ").split())


def test_a_reflection_is_summarised_by_its_theme_not_quoted_whole() -> None:
    nested = fact(
        "r1",
        0.9,
        content="What Ann has shared about climbing: Ann climbs; Ann boulders.",
        kind="reflection",
        topic="climbing",
    )
    assert nested.told_of("Ann") == "climbing"
    assert fact("f1", 0.8).told_of("Ann") == "fact f1"
    summary = offline_summary(
        ReflectionRequest(user_name="Ann", facts=[nested.told_of("Ann"), "Ann runs marathons"])
    )
    assert summary.content.count("has shared about") == 1


def test_one_reflection_per_theme() -> None:
    a, b, c = [fact("a", 0.9)], [fact("b", 0.8)], [fact("c", 0.7)]
    earlier = fact("r-old", 0.9, kind="reflection", topic="Climbing")
    other = fact("r-other", 0.9, kind="reflection", topic="cooking")
    merged = one_per_theme([a, b, c], ["climbing", "travel", "climbing "], [earlier, other], 40)
    groups = {frozenset(f.id for f in g): changed for g, changed in merged}
    # a and c share a theme, and the earlier reflection on it joins them
    assert groups == {frozenset({"a", "c", "r-old"}): True, frozenset({"b"}): False}
    untouched = one_per_theme([a, b], ["", "travel"], [earlier], 40)
    assert [(sorted(f.id for f in g), changed) for g, changed in untouched] == [
        (["a"], False),
        (["b"], False),
    ]


def test_groups_on_one_theme_are_one_only_within_the_bound() -> None:
    groups = [[fact(f"a{i}", 0.9) for i in range(3)], [fact(f"b{i}", 0.8) for i in range(2)]]
    merged = one_per_theme(groups, ["climbing", "climbing"], [], 4)
    assert sorted(len(g) for g, _ in merged) == [2, 3]
    assert len(one_per_theme(groups, ["climbing", "climbing"], [], 5)) == 1


def test_a_long_topic_is_one_theme_with_the_topic_a_reflection_kept() -> None:
    long = "climbing in the alps and the dolomites with friends from the old university club"
    kept = fact("r-old", 0.9, kind="reflection", topic=long[:TOPIC_LIMIT])
    merged = one_per_theme([[fact("a", 0.9)]], [long], [kept], 40)
    assert [sorted(f.id for f in g) for g, _ in merged] == [["a", "r-old"]]


def test_an_offline_theme_fits_a_reflections_topic() -> None:
    link = "https://example.com/" + "averyveryverylongpath" * 8
    facts = [f"Ann reads {link} daily", f"Ann reads {link} often"]
    topic = theme_of(facts, "Ann")
    assert 0 < len(topic) <= TOPIC_LIMIT
    assert offline_summary(ReflectionRequest(user_name="Ann", facts=facts)).topic == topic


def test_a_fact_in_its_speakers_words_is_summarised_as_those_words_and_the_date() -> None:
    quoted = fact("f1", 0.8, content="On 7 May 2023, Ann said: “I love hiking with my dog.”")
    assert quoted.told_of("Ann") == "I love hiking with my dog (7 May 2023)"
    summary = offline_summary(
        ReflectionRequest(
            user_name="Ann",
            facts=[quoted.told_of("Ann"), "I went hiking in the Alps (12 May 2023)"],
        )
    )
    # The dates name no theme, and the opening is not quoted again.
    assert summary.topic == "hiking and alps"
    assert "said" not in summary.content


def test_an_offline_summary_of_long_facts_fits_in_a_reflection() -> None:
    long_words = [f"I told you about trip {i}: " + "we walked and talked " * 60 for i in range(8)]
    summary = offline_summary(ReflectionRequest(user_name="Ann", facts=long_words))
    assert len(summary.content) <= 4000
    assert summary.content.endswith("more).")
    one = offline_summary(ReflectionRequest(user_name="Ann", facts=["x " * 3000, "y"]))
    assert len(one.content) <= 4000


def test_another_speakers_words_are_told_as_theirs() -> None:
    # A friend's words are remembered for the user, but a summary of the user
    # must not put them in her mouth.
    painted = fact(
        "f1", 0.8, content="On 8 May 2023, Melanie said: “I paint sunsets over Lake Tahoe.”"
    )
    assert (
        painted.told_of("Caroline") == "Melanie said: I paint sunsets over Lake Tahoe (8 May 2023)"
    )
    assert painted.told_of("Melanie Lee") == "I paint sunsets over Lake Tahoe (8 May 2023)"
