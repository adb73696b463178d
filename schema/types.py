"""Users, sessions, messages and MemUnits as GraphQL types.

Nested fields go through this request's DataLoaders (``info.context.loaders``),
so a list of N sessions asking for their messages costs one query, not N.
"""

from __future__ import annotations

from datetime import datetime

import strawberry

from hippograph import models
from hippograph.pagination import encode_id_cursor, encode_seq_cursor, encode_time_cursor
from schema.connection import Connection
from schema.context import Info
from schema.enums import Role
from schema.mapping import from_domain


@strawberry.interface(description="Anything with an id: users, sessions, messages, memories.")
class Node:
    id: strawberry.ID


@strawberry.type(description="A person whose memories the service keeps.")
class User(Node):
    name: str
    created_at: datetime

    @classmethod
    def of(cls, user: models.User) -> User:
        """The GraphQL view of a domain user."""
        return from_domain(cls, user)

    @strawberry.field(description="This user's sessions, newest first.")
    async def sessions(
        self, info: Info, first: int = 20, after: str | None = None
    ) -> SessionConnection:
        page = await info.context.loaders.user_sessions.load((self.id, first, after))
        return SessionConnection.of(page, Session.of, session_cursor)


@strawberry.type(description="A conversation of one user.")
class Session(Node):
    user_id: strawberry.ID
    title: str
    started_at: datetime

    @classmethod
    def of(cls, session: models.Session) -> Session:
        """The GraphQL view of a domain session."""
        return from_domain(cls, session)

    @strawberry.field(description="The user this session belongs to.")
    async def user(self, info: Info) -> User | None:
        user = await info.context.loaders.users.load(self.user_id)
        return User.of(user) if user else None

    @strawberry.field(description="Messages in conversation order.")
    async def messages(
        self, info: Info, first: int = 50, after: str | None = None
    ) -> MessageConnection:
        page = await info.context.loaders.session_messages.load((self.id, first, after))
        return MessageConnection.of(page, Message.of, message_cursor)


@strawberry.type(description="A raw message: what every memory traces back to.")
class Message(Node):
    session_id: strawberry.ID
    user_id: strawberry.ID
    speaker: str
    role: Role
    content: str
    ts: datetime
    seq: int
    client_id: str | None

    @classmethod
    def of(cls, message: models.Message) -> Message:
        """The GraphQL view of a domain message."""
        return from_domain(cls, message)

    @strawberry.field(description="The session this message belongs to.")
    async def session(self, info: Info) -> Session | None:
        session = await info.context.loaders.sessions.load(self.session_id)
        return Session.of(session) if session else None


@strawberry.type(description="The smallest unit extracted from a run of messages.")
class MemUnit(Node):
    user_ids: list[strawberry.ID]
    group_id: str | None
    session_id: strawberry.ID
    summary: str
    narrative: str
    subject: str
    participants: list[str]
    keywords: list[str]
    ts: datetime
    source_type: str

    @classmethod
    def of(cls, unit: models.MemUnit) -> MemUnit:
        """The GraphQL view of a domain MemUnit."""
        return from_domain(cls, unit)

    @strawberry.field(description="The messages this MemUnit was extracted from, in order.")
    async def messages(self, info: Info) -> list[Message]:
        messages = await info.context.loaders.memunit_messages.load(self.id)
        return [Message.of(m) for m in messages]


@strawberry.type(description="A page of users, by id.")
class UserConnection(Connection[User]):
    pass


@strawberry.type(description="A page of sessions, newest first.")
class SessionConnection(Connection[Session]):
    pass


@strawberry.type(description="A page of messages in conversation order.")
class MessageConnection(Connection[Message]):
    pass


def user_cursor(user: models.User) -> str:
    """Where a page of users ends: after this id."""
    return encode_id_cursor(user.id)


def session_cursor(session: models.Session) -> str:
    """Where a page of sessions (newest first) ends."""
    return encode_time_cursor(session.started_at, session.id)


def message_cursor(message: models.Message) -> str:
    """Where a page of messages (conversation order) ends."""
    return encode_seq_cursor(message.seq)
