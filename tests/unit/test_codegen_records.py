"""``codegen/records.py``: a fragment of plain fields becomes a typed frozen dataclass."""

from __future__ import annotations

import pytest
from graphql import build_schema, parse

from codegen.records import records_module

SCHEMA = build_schema(
    """
    scalar DateTime
    enum Mood { GLAD SAD }
    "Someone."
    type Person { id: ID! name: String nick: [String!]! mood: Mood! at: DateTime!
                  pet: Pet card: Card! }
    "An animal."
    type Pet { id: ID! name: String! }
    type Card { number: Int! weight: Float }
    type Query { person: Person }
    """
)


def test_each_selected_field_is_typed_from_the_schema_in_the_fragments_order() -> None:
    document = parse(
        """
        fragment PetFields on Pet { name }
        fragment PersonFields on Person {
          name id nick mood at pet { ...PetFields } card { number weight }
        }
        fragment Either on Person { id ... on Person { name } }
        """
    )
    text = records_module(SCHEMA, document)
    person = text[text.index("class Person:") :].split("\n\n\n")[0]
    assert person.splitlines()[1:] == [
        '    """Someone."""',
        "",
        "    name: str | None",
        "    id: str",
        "    nick: tuple[str, ...]",
        "    mood: Mood",
        "    at: datetime",
        "    pet: Pet | None",
        "    card: Card",
    ]
    # The spread fragment's class; a selection in place gets its own class.
    assert "class Pet:" in text
    assert "    name: str\n" in text
    assert "class Card:" in text
    assert "    weight: float | None" in text
    # Written once, and a fragment that branches on the type is not a record.
    assert text.count("class Person:") == 1
    assert "Either" not in text
    assert "from hippograph_client.enums import (\n    Mood,\n)" in text


def test_an_alias_is_refused_a_record_reads_fields_by_their_names() -> None:
    with pytest.raises(TypeError, match="plain fields only"):
        records_module(SCHEMA, parse("fragment P on Person { who: name }"))
