"""Reading conversation files: JSONL lines and LoCoMo samples, and errors that say where."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hippograph.errors import InvalidInput
from hippograph.importers.conversations import (
    ImportFormat,
    Person,
    detect_format,
    named_user,
    only,
    parse_jsonl,
    read_conversations,
)
from hippograph.models import Role
from tests.cli.conftest import locomo_sample, write_jsonl, write_locomo

LINE: dict[str, Any] = {
    "user_id": "alice",
    "user_name": "Alice",
    "session_title": "trip",
    "messages": [
        {"speaker": "Alice", "content": "We land in Lisbon at noon.", "ts": "2024-05-01T10:00:00Z"},
        {"speaker": "Bot", "content": "Noted!", "role": "assistant", "client_id": "b1"},
    ],
}


def _error(rows: list[Any]) -> str:
    with pytest.raises(InvalidInput) as caught:
        parse_jsonl([r if isinstance(r, str) else json.dumps(r) for r in rows], "f.jsonl")
    return caught.value.message


def test_a_jsonl_line_becomes_one_session_of_its_user(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "chats.jsonl",
        [
            LINE,
            "",
            {
                "user_id": "bob",
                "conversation_id": "c-7",
                "messages": [{"speaker": "Bob", "content": "Hi"}],
            },
        ],
    )
    alice, bob = read_conversations(path)
    assert (alice.source, alice.user_id, alice.user_name) == (
        "chats.jsonl line 1",
        "alice",
        "Alice",
    )
    (session,) = alice.sessions
    assert (session.key, session.title) == ("chats.jsonl:1", "trip")
    first, second = session.messages
    assert first.ts == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert session.started_at == first.ts
    # Positions stand in for missing client ids, so a re-import finds the same messages.
    assert (first.client_id, second.client_id) == ("#0", "b1")
    assert (first.role, second.role) == (Role.USER, Role.ASSISTANT)
    # A blank line is skipped but still counted; a conversation_id is the session's identity.
    assert (bob.source, bob.user_name, bob.sessions[0].key) == ("chats.jsonl line 3", "bob", "c-7")
    assert bob.sessions[0].started_at is None


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ('{"user_id": "alice", "messages": [', "f.jsonl line 2: not valid JSON"),
        ('["alice"]', "f.jsonl line 2: expected a JSON object, got list"),
        ({"messages": LINE["messages"]}, "f.jsonl line 2: user_id: Field required"),
        (
            {"user_id": "bad id!", "messages": LINE["messages"]},
            "f.jsonl line 2: user_id: must be 1-128 characters",
        ),
        (
            {"user_id": "alice", "messages": []},
            "f.jsonl line 2: messages: List should have at least 1 item",
        ),
        (
            {"user_id": "alice", "msgs": []},
            "f.jsonl line 2: messages: Field required; msgs: Extra inputs are not permitted",
        ),
        (
            {"user_id": "alice", "messages": [{"speaker": "A"}]},
            "f.jsonl line 2: messages[0].content: Field required",
        ),
        (
            {"user_id": "alice", "messages": [{"speaker": "A", "content": "  "}]},
            "f.jsonl line 2: messages[0].content: must not be empty",
        ),
        (
            {
                "user_id": "alice",
                "messages": [{"speaker": "A", "content": "x", "ts": "2024-05-01T10:00:00"}],
            },
            "f.jsonl line 2: messages[0].ts: must include a time zone offset",
        ),
        (
            {"user_id": "alice", "messages": [{"speaker": "A", "content": "x", "ts": "May 1"}]},
            "f.jsonl line 2: messages[0].ts: is not an ISO 8601 time",
        ),
        (
            {"user_id": "alice", "messages": [{"speaker": "A", "content": "x", "role": "boss"}]},
            "f.jsonl line 2: messages[0].role: must be one of user, assistant, system, tool",
        ),
        (
            {
                "user_id": "alice",
                "messages": [
                    {"speaker": "A", "content": "x", "client_id": "#1"},
                    {"speaker": "A", "content": "y"},
                ],
            },
            "f.jsonl line 2: messages[1].client_id '#1' is used twice",
        ),
        (
            {"user_id": "alice", "messages": ["hi"]},
            "f.jsonl line 2: messages[0]: Input should be a JSON object",
        ),
        (
            {
                "user_id": "alice",
                "messages": [{"speaker": "A", "content": "x", "client_id": "a b"}],
            },
            "f.jsonl line 2: messages[0].client_id: must be 1-128 printable ASCII characters",
        ),
        (
            {"user_id": 7, "session_title": "x" * 201, "messages": LINE["messages"]},
            "f.jsonl line 2: user_id: Input should be a valid string; "
            "session_title: is 201 characters long; the limit is 200",
        ),
        (
            LINE | {"conversation_id": "c1", "messages": [{"content": "another day"}]},
            "f.jsonl line 2: conversation_id 'c1' of user 'alice' is line 1's too",
        ),
        # Refused only once the user was created, halfway through an import,
        # before the name was part of the line's shape.
        (
            {"user_id": "alice", "user_name": "Al\x00ice", "messages": LINE["messages"]},
            "f.jsonl line 2: user_name: must not contain NUL characters",
        ),
    ],
)
def test_a_bad_jsonl_line_is_refused_naming_its_line(row: Any, expected: str) -> None:
    first = LINE | {"conversation_id": "c1"}
    assert _error([first, row]).startswith(expected)


def test_empty_optional_values_mean_absent() -> None:
    row = {"user_id": "bob", "user_name": "", "session_title": "", "conversation_id": ""}
    message = {"speaker": "Bob", "content": "Hi", "ts": "", "role": "", "client_id": ""}
    (bob,) = parse_jsonl([json.dumps(row | {"messages": [message]})], "f.jsonl")
    (session,) = bob.sessions
    assert (bob.user_name, session.key, session.title) == ("bob", "f.jsonl:1", "")
    (only,) = session.messages
    assert (only.ts, only.role, only.client_id) == (None, Role.USER, "#0")


def test_a_locomo_sample_becomes_a_user_per_speaker_with_a_session_per_locomo_session(
    tmp_path: Path,
) -> None:
    (conversation,) = read_conversations(write_locomo(tmp_path / "locomo.json"))
    assert conversation.people == (
        Person("conv-1-caroline", "Caroline"),
        Person("conv-1-melanie", "Melanie"),
    )
    assert (conversation.user_id, conversation.key) == ("conv-1-caroline", "conv-1")
    assert [s.title for s in conversation.sessions] == ["session 1", "session 2"]  # 3 is empty
    second = conversation.sessions[1]
    assert second.key == "locomo:session_2"
    assert [m.client_id for m in second.messages] == ["D2:1", "D2:2", "D2:3"]
    assert (
        second.messages[1].content
        == "That's great! Look at this. and shared a photo of a rainbow flag"
    )
    assert {m.ts for m in second.messages} == {datetime(2023, 5, 25, 19, 55, tzinfo=UTC)}
    assert conversation.message_count == 7


def test_a_broken_locomo_sample_is_refused_naming_its_index(tmp_path: Path) -> None:
    broken = locomo_sample()
    del broken["conversation"]["speaker_b"]
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([locomo_sample(), broken]))
    with pytest.raises(InvalidInput, match=re.escape("locomo.json sample 1: not a LoCoMo sample")):
        read_conversations(path)


def _sample_with(**conversation: Any) -> dict[str, Any]:
    sample = locomo_sample()
    sample["conversation"].update(conversation)
    return sample


@pytest.mark.parametrize(
    ("fmt", "content", "expected"),
    [
        ("locomo", "[{", "f.json: not valid JSON: Expecting property name"),
        ("messages", "nope", "f.json: not valid JSON: Expecting value"),
        ("locomo", locomo_sample(), "f.json: a LoCoMo file is a JSON list of samples"),
        ("locomo", [7], "f.json sample 0: not a LoCoMo sample (TypeError: "),
        (
            "locomo",
            [_sample_with(session_1="hi")],
            "f.json sample 0: not a LoCoMo sample (AttributeError: ",
        ),
        (
            "locomo",
            [_sample_with(session_1_date_time="someday")],
            "f.json sample 0: not a LoCoMo sample (ValueError: time data 'someday'",
        ),
        (
            "locomo",
            [{**locomo_sample(), "sample_id": "bad id!"}],
            "f.json sample 0: sample_id must be 1-128 characters of letters, digits and _.:@- "
            "starting with a letter or digit (got 'bad id!')",
        ),
        (
            "locomo",
            [_sample_with(session_1=[{"speaker": "Caroline", "dia_id": "D 1", "text": "x"}])],
            "f.json sample 0: dia_id must be 1-128 printable ASCII characters without spaces "
            "(got 'D 1')",
        ),
        (
            "locomo",
            [locomo_sample(), _sample_with(speaker_b="M" * 201)],
            "f.json sample 1: speaker is 201 characters long; the limit is 200",
        ),
        ("locomo", [_sample_with(speaker_a=7)], "f.json sample 0: not a LoCoMo sample ("),
        ("locomo", [{**locomo_sample(), "sample_id": 7}], "f.json sample 0: not a LoCoMo sample ("),
        (
            "messages",
            {"role": "user", "content": "hi"},
            "f.json: a message list is a JSON list of {role, content} objects",
        ),
    ],
)
def test_a_bad_file_of_a_named_format_is_refused_saying_what_is_wrong(
    tmp_path: Path, fmt: ImportFormat, content: Any, expected: str
) -> None:
    path = tmp_path / "f.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(InvalidInput) as refused:
        read_conversations(path, fmt, user_id="sam")
    assert refused.value.message.startswith(expected), refused.value.message


@pytest.mark.parametrize("name", ["chats.jsonl", "locomo.json"])
def test_a_file_that_is_not_utf8_is_refused_naming_its_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".jsonl"):
        write_jsonl(path, [LINE, LINE])
    else:
        write_locomo(path)
    lines = path.read_bytes().split(b"\n")
    lines[-1 if name.endswith(".json") else 1] += b" \xe9"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(InvalidInput, match=r"line \d+: not UTF-8 text"):
        read_conversations(path)


def test_the_format_is_detected_from_the_name_or_the_content(tmp_path: Path) -> None:
    assert detect_format(write_jsonl(tmp_path / "a.jsonl", [LINE])) == "jsonl"
    assert detect_format(write_jsonl(tmp_path / "a.json", [LINE])) == "jsonl"
    assert detect_format(write_locomo(tmp_path / "b.json")) == "locomo"
    (tmp_path / "c.txt").write_text("hello")
    (tmp_path / "d.json").write_text('[{"role": "user", "content": "hi"}]')
    assert detect_format(tmp_path / "d.json") == "messages"
    (tmp_path / "c.txt").write_text("hello")
    with pytest.raises(InvalidInput, match=re.escape("pass --format locomo|messages|jsonl")):
        detect_format(tmp_path / "c.txt")


def test_a_json_list_that_is_no_locomo_sample_says_what_a_sample_is(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps([{"id": 1, "turns": [{"who": "Ann", "said": "hi"}]}]))
    with pytest.raises(InvalidInput) as refused:
        read_conversations(path)
    message = refused.value.message
    assert message.startswith("mine.json sample 0: not a LoCoMo sample: it has no 'conversation'")
    assert "docs/import.md" in message
    assert "KeyError" not in message


def test_an_openai_style_message_list_is_one_conversation_of_the_named_user(
    tmp_path: Path,
) -> None:
    path = tmp_path / "chat.json"
    path.write_text(
        json.dumps(
            [
                {"role": "system", "content": "You are helpful."},
                {"role": "user", "content": "I moved to Lisbon last month."},
                {"role": "assistant", "content": "How do you like it?"},
                {"role": "user", "name": "Sam", "content": "A lot."},
            ]
        )
    )
    with pytest.raises(InvalidInput, match="names no user: say whose they are with --user"):
        read_conversations(path)
    (conversation,) = read_conversations(path, user_id="sam")
    assert conversation.people == (Person("sam", "sam"),)
    (session,) = conversation.sessions
    assert [(m.speaker, m.role) for m in session.messages] == [
        ("system", Role.SYSTEM),
        ("sam", Role.USER),
        ("assistant", Role.ASSISTANT),
        ("Sam", Role.USER),
    ]


def test_a_jsonl_line_files_the_speakers_it_names_under_their_users(tmp_path: Path) -> None:
    row = {
        "user_id": "emi",
        "user_name": "Emi",
        "speakers": {"Elise": "elise"},
        "messages": [
            {"speaker": "Emi", "content": "Spring break in Kyoto!"},
            {"speaker": "Elise", "content": "I am off to Oslo."},
            {"role": "assistant", "content": "Noted."},
        ],
    }
    (conversation,) = read_conversations(write_jsonl(tmp_path / "f.jsonl", [row]))
    assert conversation.people == (Person("emi", "Emi"), Person("elise", "Elise"))
    assert [m.speaker for m in conversation.sessions[0].messages] == ["Emi", "Elise", "assistant"]
    bad = {**row, "speakers": {"Elise": "bad id!"}}
    with pytest.raises(InvalidInput, match=re.escape("g.jsonl line 1: speakers.Elise: must be")):
        read_conversations(write_jsonl(tmp_path / "g.jsonl", [bad]))


def test_only_picks_one_conversation_and_names_the_ones_there_are(tmp_path: Path) -> None:
    rows: list[dict[str, Any] | str] = [
        {**LINE, "conversation_id": "a"},
        {**LINE, "conversation_id": "b"},
    ]
    conversations = read_conversations(write_jsonl(tmp_path / "f.jsonl", rows))
    assert [c.key for c in only(conversations, "b", "f.jsonl")] == ["b"]
    assert [c.key for c in only(conversations, "1", "f.jsonl")] == ["a"]  # by line
    with pytest.raises(
        InvalidInput, match=re.escape("f.jsonl has no conversation 'c' (it has a, b)")
    ):
        only(conversations, "c", "f.jsonl")


def test_user_names_the_user_of_a_one_speaker_conversation_only(tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "locomo.json")
    with pytest.raises(InvalidInput) as refused:
        named_user(read_conversations(path), "jon", None, path.name)
    assert refused.value.message == (
        "locomo.json sample 0 has 2 speakers, each filed under a user of their own "
        "(Caroline as conv-1-caroline, Melanie as conv-1-melanie); --user and --name name "
        "the user of a conversation with one speaker"
    )


def test_the_documented_example_file_reads_as_docs_import_says() -> None:
    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "conversations.jsonl"
    sam, emi, kim = read_conversations(example)
    assert sam.people == (Person("sam", "Sam"),)
    assert emi.people == (Person("emi", "Emi"), Person("elise", "Elise"))
    assert [m.speaker for m in kim.sessions[0].messages] == ["system", "kim", "assistant"]
    assert [c.key for c in (sam, emi, kim)] == ["sam-2026-03-02", "emi-elise-1", "kim-openai"]
