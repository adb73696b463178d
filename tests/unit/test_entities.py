"""The offline entity reading: names, kinds, merge keys, ids, and what a query may mean."""

from __future__ import annotations

from datetime import UTC, datetime

from hippograph.entities import (
    _capitalised_spans,
    entity_id,
    extract_entities,
    normalise,
    query_norms,
    renaming,
)
from hippograph.ids import IdKind, kind_of
from hippograph.models import EntityKind, EntityMention

SAID = datetime(2023, 5, 8, 14, 0, tzinfo=UTC)


def kinds(speaker: str, text: str, known: tuple[str, ...] = ()) -> dict[str, EntityKind]:
    return {e.norm: e.kind for e in extract_entities(speaker, text, SAID, known)}


def test_normalise_casefolds_drops_possessives_and_collapses_spaces() -> None:
    assert normalise("Caroline's") == "caroline"
    assert normalise("  New   York ") == "new york"
    assert normalise("MELANIE’S") == "melanie"
    assert normalise('"Hiking Club".') == "hiking club"


def test_the_speaker_is_a_person_and_comes_first() -> None:
    found = extract_entities("Caroline", "I went hiking.", SAID)
    assert found[0] == EntityMention("caroline", "Caroline", EntityKind.PERSON)


def test_relative_dates_become_dates_named_as_memorize_writes_them() -> None:
    found = kinds("Mel", "I painted it yesterday and sold one last month.")
    assert found["7 may 2023"] is EntityKind.DATE
    assert found["april 2023"] is EntityKind.DATE
    # the expressions themselves are no things
    assert "yesterday" not in found
    assert "last month" not in found


def test_capitalised_spans_with_cues_get_kinds() -> None:
    found = kinds("Mel", "We moved to Boston and I joined the Hiking Club with Caroline.")
    assert found["boston"] is EntityKind.PLACE
    assert found["hiking club"] is EntityKind.ORGANIZATION
    assert found["caroline"] is EntityKind.THING  # a name, but nobody said it is a person
    assert kinds("Mel", "I met Caroline.", ("Caroline",))["caroline"] is EntityKind.PERSON


def test_a_sentence_opening_word_is_a_name_only_when_known() -> None:
    spans = [
        name
        for name, _ in _capitalised_spans(
            "Maybe. Caroline called. Yesterday Jon came.", frozenset({"caroline"})
        )
    ]
    assert spans == ["Caroline", "Jon"]  # not "Maybe", not "Yesterday Jon"


def test_keyword_phrases_are_things_and_never_straddle_a_name() -> None:
    found = kinds("Caroline", "The pottery workshop with Melanie's kids was fun.", ("Melanie",))
    assert found["pottery workshop"] is EntityKind.THING
    assert found["melanie"] is EntityKind.PERSON
    assert not any("melanie" in norm and norm != "melanie" for norm in found)


def test_each_entity_once() -> None:
    found = extract_entities("Jon", "Jon and jon's dog. Jon!", SAID, ("Jon",))
    assert [e.norm for e in found].count("jon") == 1


def test_ids_merge_per_user_by_normalised_name() -> None:
    one = entity_id("u1", normalise("Caroline's"))
    assert one == entity_id("u1", "caroline")
    assert one != entity_id("u2", "caroline")
    assert kind_of(one) is IdKind.ENTITY


def test_query_norms_are_liberal_phrases_names_and_written_dates() -> None:
    norms = query_norms("What did Mel and her kids make at the pottery workshop on 7 May 2023?")
    assert {"mel", "pottery workshop", "pottery", "workshop", "7 may 2023"} <= set(norms)
    assert "what" not in norms
    assert "the" not in norms


def test_a_long_questions_names_come_before_its_phrases() -> None:
    # The walk looks up the first 32: a long question's phrases must not crowd
    # out the name it asks about, said last.
    question = (
        "tell me again what exactly happened during that long rainy weekend camping trip when "
        "everyone got completely lost hiking near the old abandoned mill before Caroline moved "
        "to Boston on 7 May 2023"
    )
    norms = query_norms(question)
    assert len(norms) > 32
    assert {"caroline", "boston", "7 may 2023"} <= set(norms[:4])
    words = [len(n.split()) for n in norms[4:]]
    assert words == sorted(words)


def test_a_rewrite_unlinks_the_names_it_dropped_and_links_none_of_its_own() -> None:
    said = "Caroline moved to Boston yesterday"
    trace = "the user once had memories about Caroline"
    named, unnamed = renaming(said, trace, said, SAID, ("Caroline",))
    # "user" and "memories" are the fainter wording's, not the memory's names.
    assert named == ()
    assert set(unnamed) == {"boston", "7 may 2023", "moved"}
    # Restored, it names again what the trace had dropped, and only that.
    back, gone = renaming(trace, said, said, SAID, ("Caroline",))
    assert {m.norm for m in back} == set(unnamed)
    assert gone == ()
