"""Conversation files (JSONL, LoCoMo JSON, a message list) read into what the importer stores.

A JSONL file holds one conversation per line::

    {"user_id": "alice", "user_name": "Alice", "session_title": "trip",
     "conversation_id": "chat-42", "speakers": {"Bob": "bob"},
     "messages": [{"speaker": "Alice", "content": "...", "ts": "2024-05-01T10:00:00Z",
                   "role": "user", "client_id": "m1"}]}

Everything but ``user_id`` and ``messages`` is optional (null or "" when
absent); a message may leave out ``speaker`` and give a ``role``, as
OpenAI-style lists do. The line's shape is declared in
hippograph.importers.jsonl_lines; docs/import.md has the whole format.

Every speaker is filed under a user of their own: a JSONL line's
``speakers`` names the other people in it (a speaker it does not name,
an assistant say, stays with the line's user); each speaker of a LoCoMo
sample becomes the user ``<sample_id>-<name>``. The conversation is stored
once, in sessions of its first user, and memorize files what each said
under its speaker, as ``memorize(userIds: ...)`` does.

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
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from hippograph.errors import HippoError, InvalidInput
from hippograph.ids import require_client_id, require_user_id
from hippograph.importers.jsonl_lines import MAX_NAME, ConversationLine
from hippograph.importers.locomo import Conversation, parse_sample
from hippograph.located import json_object, utf8_lines, utf8_text, validate_line
from hippograph.models import Role
from hippograph.services.messages import MessageInput
from hippograph.validation import require_text

ImportFormat = Literal["locomo", "jsonl", "messages"]
_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class SessionImport:
    """One session to store: its identity within its user, title, messages in order."""

    key: str
    title: str
    messages: tuple[MessageInput, ...]
    started_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Person:
    """A user a conversation's speaker is filed under: the user's id and name (= the speaker)."""

    user_id: str
    name: str


@dataclass(frozen=True, slots=True)
class ConversationImport:
    """One conversation of a file: its people and the sessions to store.

    The sessions belong to the first of ``people``; memorize files each
    turn under the person whose name is its speaker (a speaker no person
    names, an assistant say, under the first). ``source`` says where it
    came from ("notes.jsonl line 3"), for messages; ``key`` is what
    ``--only`` picks it by (the conversation_id, LoCoMo's sample_id).
    """

    source: str
    people: tuple[Person, ...]
    sessions: tuple[SessionImport, ...]
    key: str = ""

    @property
    def user_id(self) -> str:
        """The user whose sessions hold the conversation."""
        return self.people[0].user_id

    @property
    def user_name(self) -> str:
        """That user's name."""
        return self.people[0].name

    @property
    def message_count(self) -> int:
        """How many messages it holds."""
        return sum(len(s.messages) for s in self.sessions)


def speaker_user_id(conversation: str, speaker: str) -> str:
    """The user id of ``speaker`` of a LoCoMo-style sample: ``<sample>-<speaker in lowercase>``."""
    slug = _SLUG.sub("-", speaker.lower()).strip("-") or "speaker"
    return f"{conversation}-{slug}"[:128]


def named_user(
    conversations: list[ConversationImport], user_id: str | None, name: str | None, source: str
) -> list[ConversationImport]:
    """The file's one conversation stored under ``user_id`` and ``name`` (either may be None).

    Several conversations under one user would merge sessions of the same
    name (every LoCoMo sample has a "session 1"), and several speakers under
    one user would file each one's words under the other: naming is for a
    file of one conversation with one person in it.
    """
    if len(conversations) != 1:
        raise InvalidInput(
            f"{source} holds {len(conversations)} conversations; --user and --name name the "
            "user of a file of one conversation (pick one with --only)",
            "user",
        )
    [conversation] = conversations
    if len(conversation.people) > 1:
        people = ", ".join(f"{p.name} as {p.user_id}" for p in conversation.people)
        raise InvalidInput(
            f"{conversation.source} has {len(conversation.people)} speakers, each filed under "
            f"a user of their own ({people}); --user and --name name the user of a "
            "conversation with one speaker",
            "user",
        )
    user_id = conversation.user_id if user_id is None else require_user_id(user_id, "user")
    name = conversation.user_name if name is None else require_text(name, "name", 200)
    return [replace(conversation, people=(Person(user_id, name),))]


def only(
    conversations: list[ConversationImport], key: str, source: str
) -> list[ConversationImport]:
    """The conversation of the file whose key (conversation_id, sample_id) or line is ``key``."""
    picked = [c for c in conversations if key in {c.key, c.source.rsplit(" ", 1)[-1]}]
    if not picked:
        known = ", ".join(c.key for c in conversations[:10] if c.key)
        raise InvalidInput(
            f"{source} has no conversation {key!r}"
            + (f" (it has {known}{', ...' if len(conversations) > 10 else ''})" if known else ""),
            "only",
        )
    return picked


def detect_format(path: Path) -> ImportFormat:
    """``jsonl`` for ``.jsonl``/``.ndjson``; otherwise a JSON list is LoCoMo, objects JSONL."""
    if path.suffix.lower() in {".jsonl", ".ndjson"}:
        return "jsonl"
    with path.open(encoding="utf-8", errors="replace") as handle:
        head = handle.read(4096).lstrip("\ufeff \t\r\n")
    if head.startswith("["):
        # LoCoMo samples carry "sample_id" and "conversation"; a message list "role".
        return "messages" if re.match(r'\[\s*\{\s*"(role|content)"', head) else "locomo"
    if head.startswith("{"):
        return "jsonl"
    raise InvalidInput(
        f"{path}: cannot tell the format (expected a JSON list of LoCoMo samples, a JSON "
        "list of messages or JSONL objects); pass --format locomo|messages|jsonl",
        "format",
    )


def read_conversations(
    path: Path, fmt: ImportFormat | None = None, *, user_id: str | None = None
) -> list[ConversationImport]:
    """Every conversation in the file at ``path`` (format detected unless given).

    ``user_id`` is whose a message list is (it names nobody); other formats name their users.
    """
    fmt = fmt or detect_format(path)
    if fmt == "locomo":
        return parse_locomo(_load_json(path), path.name)
    if fmt == "messages":
        return [parse_message_list(_load_json(path), path.name, user_id)]
    return parse_jsonl((line for _, line in utf8_lines(path)), path.name)


def _load_json(path: Path) -> Any:
    try:
        return json.loads(utf8_text(path))
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
            conversations.append(_from_locomo(parse_sample(sample), source))
        except KeyError as exc:
            raise InvalidInput(
                f"{source}: not a LoCoMo sample: it has no {exc.args[0]!r} (a sample is "
                '{"sample_id": ..., "conversation": {"speaker_a": ..., "session_1": [...]}}; '
                "a conversation of your own goes in JSONL: see docs/import.md)"
            ) from exc
        except (TypeError, ValueError, AttributeError) as exc:
            raise InvalidInput(
                f"{source}: not a LoCoMo sample ({type(exc).__name__}: {exc})"
            ) from exc
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
    speakers = dict.fromkeys(
        [*conversation.speakers, *(t.speaker for s in conversation.sessions for t in s.turns)]
    )
    # Each speaker becomes a user named so: checked now, as the user would be,
    # not once the samples before this one are imported.
    for speaker in speakers:
        _check(require_text, source, speaker, "speaker", MAX_NAME)
    people = tuple(Person(speaker_user_id(user_id, s), s) for s in speakers)
    return ConversationImport(source, people, sessions, key=user_id)


def parse_jsonl(lines: Iterable[str], name: str) -> list[ConversationImport]:
    """One conversation per non-blank line; an error names the line and the field."""
    conversations = []
    # (user, conversation id) -> the line that has it: a second line of the same
    # conversation would be its session again, and its messages' default ids
    # (#0, #1…) the first line's, found as already there and never stored.
    lines_of: dict[tuple[str, str], int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        source = f"{name} line {number}"
        raw = json_object(line, source)
        conversation = parse_conversation(raw, source, default_key=f"{name}:{number}")
        if conversation.key:
            first = lines_of.setdefault((conversation.user_id, conversation.key), number)
            if first != number:
                raise InvalidInput(
                    f"{source}: conversation_id {conversation.key!r} of user "
                    f"{conversation.user_id!r} is line {first}'s too: a conversation is one "
                    "line (its messages in one list)",
                    "conversation_id",
                )
        conversations.append(conversation)
    return conversations


def parse_conversation(
    raw: Mapping[str, Any], source: str, *, default_key: str
) -> ConversationImport:
    """One JSONL conversation object; ``default_key`` identifies it without a conversation_id."""
    line = validate_line(ConversationLine, raw, source)
    owner = Person(line.user_id, line.user_name or line.user_id)
    messages = [
        MessageInput(
            speaker=m.speaker or m.name or _role_speaker(m.role, owner.name),
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
    others = tuple(
        Person(user_id, speaker)
        for speaker, user_id in (line.speakers or {}).items()
        if user_id != owner.user_id
    )
    return ConversationImport(source, (owner, *others), (session,), key=line.conversation_id or "")


def _role_speaker(role: Role, user_name: str) -> str:
    """Who said a message that names only its role: the line's user, or the role itself."""
    return user_name if role == Role.USER else role.value


def parse_message_list(data: Any, name: str, user_id: str | None) -> ConversationImport:
    """A JSON list of ``{"role", "content"}`` messages (OpenAI's shape): one conversation.

    The list names no user, so ``user_id`` (``hippograph import --user``) must.
    """
    if not isinstance(data, list):
        raise InvalidInput(f"{name}: a message list is a JSON list of {{role, content}} objects")
    if user_id is None:
        raise InvalidInput(
            f"{name} is a list of messages and names no user: say whose they are with --user",
            "user",
        )
    return parse_conversation(
        {"user_id": user_id, "messages": data}, name, default_key=f"{name}:messages"
    )


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
