"""Conversation files (JSONL, LoCoMo JSON) read into what the importer stores.

A JSONL file holds one conversation per line::

    {"user_id": "alice", "user_name": "Alice", "session_title": "trip",
     "conversation_id": "chat-42",
     "messages": [{"speaker": "Alice", "content": "...", "ts": "2024-05-01T10:00:00Z",
                   "role": "user", "client_id": "m1"}]}

``user_name``, ``session_title``, ``conversation_id`` and each message's
``ts``, ``role`` and ``client_id`` are optional (null or "" when absent); the
line's shape is declared in hippograph.importers.jsonl_lines. Each line becomes one session
of its user; a LoCoMo sample becomes one user (the sample id) with one session
per LoCoMo session, as in ``hippograph bench locomo``.

Re-importing must create nothing new, and sessions get random ids when made
through the API, so each imported session has an identity (``key``) from which
the importer derives a fixed session id: the ``conversation_id`` if given,
else the file's name and the line number; for LoCoMo the session number.
Message ids then come from the session and the message's client id: the
given ``client_id``, else ``#<position>`` in the conversation (LoCoMo: the
turn's ``dia_id``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from hippograph.errors import HippoError, InvalidInput
from hippograph.ids import require_client_id, require_user_id
from hippograph.importers.jsonl_lines import ConversationLine
from hippograph.importers.locomo import Conversation, parse_sample
from hippograph.located import json_object, validate_line
from hippograph.services.messages import MessageInput
from hippograph.validation import require_text

ImportFormat = Literal["locomo", "jsonl"]
FORMATS: tuple[ImportFormat, ...] = ("locomo", "jsonl")


@dataclass(frozen=True, slots=True)
class SessionImport:
    """One session to store: its identity within its user, title, messages in order."""

    key: str
    title: str
    messages: tuple[MessageInput, ...]
    started_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ConversationImport:
    """One conversation of a file: a user and the sessions to store for them.

    ``source`` says where it came from ("notes.jsonl line 3"), for messages.
    """

    source: str
    user_id: str
    user_name: str
    sessions: tuple[SessionImport, ...]

    @property
    def message_count(self) -> int:
        """How many messages it holds."""
        return sum(len(s.messages) for s in self.sessions)


def named_user(
    conversations: list[ConversationImport], user_id: str | None, name: str | None, source: str
) -> list[ConversationImport]:
    """The file's one conversation stored under ``user_id`` and ``name`` (either may be None).

    Several conversations under one user would merge sessions of the same
    name (every LoCoMo sample has a "session 1"), so naming is for a file
    of one conversation.
    """
    if len(conversations) != 1:
        raise InvalidInput(
            f"{source} holds {len(conversations)} conversations; --user and --name name the "
            "user of a file of one conversation",
            "user",
        )
    [conversation] = conversations
    user_id = conversation.user_id if user_id is None else require_user_id(user_id, "user")
    name = conversation.user_name if name is None else require_text(name, "name", 200)
    return [replace(conversation, user_id=user_id, user_name=name)]


def detect_format(path: Path) -> ImportFormat:
    """``jsonl`` for ``.jsonl``/``.ndjson``; otherwise a JSON list is LoCoMo, objects JSONL."""
    if path.suffix.lower() in {".jsonl", ".ndjson"}:
        return "jsonl"
    with path.open(encoding="utf-8") as handle:
        head = handle.read(4096).lstrip("\ufeff \t\r\n")
    if head.startswith("["):
        return "locomo"
    if head.startswith("{"):
        return "jsonl"
    raise InvalidInput(
        f"{path}: cannot tell the format (expected a JSON list of LoCoMo samples or "
        "JSONL objects); pass --format locomo|jsonl",
        "format",
    )


def read_conversations(path: Path, fmt: ImportFormat | None = None) -> list[ConversationImport]:
    """Every conversation in the file at ``path`` (format detected unless given)."""
    fmt = fmt or detect_format(path)
    if fmt == "locomo":
        return parse_locomo(_load_json(path), path.name)
    with path.open(encoding="utf-8") as handle:
        return parse_jsonl(handle, path.name)


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path.name}: not valid JSON: {exc}") from exc


def parse_locomo(data: Any, name: str) -> list[ConversationImport]:
    """LoCoMo samples (the decoded file) as one user each, one session per LoCoMo session."""
    if not isinstance(data, list):
        raise InvalidInput(f"{name}: a LoCoMo file is a JSON list of samples")
    conversations = []
    for index, sample in enumerate(data):
        source = f"{name} sample {index}"
        try:
            parsed = parse_sample(sample)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidInput(
                f"{source}: not a LoCoMo sample ({type(exc).__name__}: {exc})"
            ) from exc
        conversations.append(_from_locomo(parsed, source))
    return conversations


def _from_locomo(conversation: Conversation, source: str) -> ConversationImport:
    user_id = _check(require_user_id, source, conversation.sample_id, "sample_id")
    sessions = tuple(
        SessionImport(
            key=f"locomo:session_{s.number}",
            title=f"session {s.number}",
            started_at=s.started_at,
            messages=tuple(
                replace(m, client_id=_check(require_client_id, source, m.client_id or "", "dia_id"))
                for m in s.message_inputs()
            ),
        )
        for s in conversation.sessions
        if s.turns
    )
    return ConversationImport(source, user_id, " & ".join(conversation.speakers), sessions)


def parse_jsonl(lines: Iterable[str], name: str) -> list[ConversationImport]:
    """One conversation per non-blank line; an error names the line and the field."""
    conversations = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        source = f"{name} line {number}"
        raw = json_object(line, source)
        conversations.append(parse_conversation(raw, source, default_key=f"{name}:{number}"))
    return conversations


def parse_conversation(
    raw: Mapping[str, Any], source: str, *, default_key: str
) -> ConversationImport:
    """One JSONL conversation object; ``default_key`` identifies it without a conversation_id."""
    line = validate_line(ConversationLine, raw, source)
    messages = [
        MessageInput(
            speaker=m.speaker,
            content=m.content,
            role=m.role,
            ts=m.ts,
            client_id=m.client_id or f"#{position}",
        )
        for position, m in enumerate(line.messages)
    ]
    _require_unique_client_ids(messages, source)
    started = next((m.ts for m in messages if m.ts is not None), None)
    session = SessionImport(
        key=line.conversation_id or default_key,
        title=line.session_title or "",
        messages=tuple(messages),
        started_at=started,
    )
    return ConversationImport(source, line.user_id, line.user_name or line.user_id, (session,))


def _require_unique_client_ids(messages: Sequence[MessageInput], source: str) -> None:
    seen: set[str] = set()
    for index, message in enumerate(messages):
        assert message.client_id is not None  # every imported message has one
        if message.client_id in seen:
            # Two messages with one id would silently become one message.
            raise InvalidInput(
                f"{source}: messages[{index}].client_id {message.client_id!r} is used twice"
            )
        seen.add(message.client_id)


def _check(
    rule: Callable[..., str], source: str, value: str, field: str, *args: Any, **kwargs: Any
) -> str:
    """Apply a shared validation rule, naming the file position in its error."""
    try:
        checked: str = rule(value, field, *args, **kwargs)
    except HippoError as exc:
        raise InvalidInput(f"{source}: {exc.message}", field) from exc
    return checked
