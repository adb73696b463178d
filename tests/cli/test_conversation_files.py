"""Reading conversation files: JSONL lines and LoCoMo samples, and errors that say where."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hippograph.errors import InvalidInput
from hippograph.importers.conversations import detect_format, parse_jsonl, read_conversations
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
        # Refused only once the user was created, halfway through an import,
        # before the name was part of the line's shape.
        (
            {"user_id": "alice", "user_name": "Al\x00ice", "messages": LINE["messages"]},
            "f.jsonl line 2: user_name: must not contain NUL characters",
        ),
    ],
)
def test_a_bad_jsonl_line_is_refused_naming_its_line(row: Any, expected: str) -> None:
    assert _error([LINE, row]).startswith(expected)


def test_empty_optional_values_mean_absent() -> None:
    row = {"user_id": "bob", "user_name": "", "session_title": "", "conversation_id": ""}
    message = {"speaker": "Bob", "content": "Hi", "ts": "", "role": "", "client_id": ""}
    (bob,) = parse_jsonl([json.dumps(row | {"messages": [message]})], "f.jsonl")
    (session,) = bob.sessions
    assert (bob.user_name, session.key, session.title) == ("bob", "f.jsonl:1", "")
    (only,) = session.messages
    assert (only.ts, only.role, only.client_id) == (None, Role.USER, "#0")


def test_a_locomo_sample_becomes_a_user_with_a_session_per_locomo_session(tmp_path: Path) -> None:
    (conversation,) = read_conversations(write_locomo(tmp_path / "locomo.json"))
    assert (conversation.user_id, conversation.user_name) == ("conv-1", "Caroline & Melanie")
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


def test_the_format_is_detected_from_the_name_or_the_content(tmp_path: Path) -> None:
    assert detect_format(write_jsonl(tmp_path / "a.jsonl", [LINE])) == "jsonl"
    assert detect_format(write_jsonl(tmp_path / "a.json", [LINE])) == "jsonl"
    assert detect_format(write_locomo(tmp_path / "b.json")) == "locomo"
    (tmp_path / "c.txt").write_text("hello")
    with pytest.raises(InvalidInput, match=re.escape("pass --format locomo|jsonl")):
        detect_format(tmp_path / "c.txt")
