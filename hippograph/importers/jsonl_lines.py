"""The shape of one line of a JSONL conversation file, as pydantic models.

See hippograph.importers.conversations for the format and what becomes of a
line. These models only say what a line may hold; hippograph.located turns
their refusals into errors naming the file, the line and the field.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator

from hippograph.errors import InvalidInput
from hippograph.ids import require_client_id, require_user_id
from hippograph.located import shared_rule
from hippograph.models import Role
from hippograph.validation import require_aware, require_text

# The user service's limit on names and titles: checked here too, so a bad
# name refuses the file before any line is imported, not halfway through.
MAX_NAME = 200
_ROLES = {role.value: role for role in Role}


def _empty_is_absent(value: object) -> object:
    # Tools that write these files often spell "no value" as "": it means
    # the same as a missing key or null, as it always has here.
    return None if value == "" else value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def _role(raw: object) -> Role:
    if raw is None or raw == "":
        return Role.USER
    role = _ROLES.get(raw.lower()) if isinstance(raw, str) else None
    if role is not None:
        return role
    raise ValueError(f"must be one of {', '.join(r.value for r in Role)} (got {raw!r})")


def _timestamp(raw: object) -> datetime | None:
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raise ValueError(f"must be an ISO 8601 time as a string (got {raw!r})")
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        raise ValueError(f"is not an ISO 8601 time (got {raw!r})") from None
    if value.tzinfo is None:
        # Refused as everywhere else: which zone a naive time meant is a guess.
        raise ValueError(f"must include a time zone offset (got {raw!r})")
    try:
        return require_aware(value, "ts")
    except InvalidInput as exc:
        raise ValueError(exc.message.removeprefix("ts ")) from None


_Text = Annotated[str, AfterValidator(_not_blank)]
_ClientId = Annotated[str, shared_rule(require_client_id)]
_Name = Annotated[str, shared_rule(require_text, MAX_NAME)]
_Title = Annotated[str, shared_rule(require_text, MAX_NAME, allow_empty=True)]
_Optional = BeforeValidator(_empty_is_absent)


class _Shape(BaseModel):
    # Strict: a number where a string belongs is a mistake in the file, not
    # something to coerce; unknown keys are refused so a typo is not ignored.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class MessageLine(_Shape):
    """One message of a conversation line; ``role`` defaults to user, in any case.

    ``speaker`` may be left out, as OpenAI-style lists do: then ``name`` (their
    participant's name), else the line's user for a user message and the role
    itself ("assistant") for the others.
    """

    speaker: Annotated[_Text | None, _Optional] = None
    name: Annotated[_Text | None, _Optional] = None
    content: _Text
    ts: Annotated[datetime | None, PlainValidator(_timestamp)] = None
    role: Annotated[Role, PlainValidator(_role)] = Role.USER
    client_id: Annotated[_ClientId | None, _Optional] = None


class ConversationLine(_Shape):
    """One line of a JSONL file: a user and one conversation with them."""

    user_id: Annotated[str, shared_rule(require_user_id)]
    user_name: Annotated[_Name | None, _Optional] = None
    session_title: Annotated[_Title | None, _Optional] = None
    conversation_id: Annotated[str | None, _Optional] = None
    # The other people of the conversation: speaker -> their user id. Each
    # one's words are filed under their own user, not the line's.
    speakers: dict[_Name, Annotated[str, shared_rule(require_user_id)]] | None = None
    messages: list[MessageLine] = Field(min_length=1)
