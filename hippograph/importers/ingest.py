"""Imported conversations stored through the memorize pipeline, idempotently.

Users are created when missing, one per speaker (the conversation lives in
sessions of its first, and memorize files each turn under its speaker's
user); each imported session gets an id derived from
its user and its key (see :mod:`hippograph.importers.conversations`), so a
second import finds the sessions, messages and MemUnits of the first and
creates nothing. Messages go to memorize in chunks of at most the per-call
limit, processed inline: the importer is itself the batch job.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hippograph.auth import Principal
from hippograph.clock import Clock
from hippograph.errors import Conflict, InvalidInput, NotFound
from hippograph.ids import IdKind, derived_id
from hippograph.importers.conversations import ConversationImport, SessionImport
from hippograph.models import Session
from hippograph.plural import counted
from hippograph.services import Services
from hippograph.services.keys import SETTINGS_ADMIN
from hippograph.services.memorize import MemorizeRequest
from hippograph.services.users import UserStore

Progress = Callable[[int], object]


@dataclass(slots=True)
class ImportReport:
    """What an import stored, added up over its conversations."""

    conversations: int = 0
    users_created: int = 0
    sessions_created: int = 0
    messages_new: int = 0
    messages_existing: int = 0
    memunits: int = 0
    memories: int = 0
    superseded: int = 0
    # (user id, user name, session id, session title, messages) of every session read
    made: list[tuple[str, str, str, str, int]] = field(default_factory=list)

    @property
    def sessions(self) -> int:
        """Sessions read from the file (new and already stored)."""
        return len(self.made)

    @property
    def messages(self) -> int:
        """Messages read from the file (new and already stored)."""
        return self.messages_new + self.messages_existing

    def summary(self, elapsed_s: float) -> str:
        """The report as two lines for a terminal."""
        rate = self.messages / elapsed_s if elapsed_s > 0 else 0.0
        return (
            f"{counted(self.conversations, 'conversation')}, "
            f"{counted(self.sessions, 'session')} ({self.sessions_created} new), "
            f"{counted(self.users_created, 'new user')}\n"
            f"{counted(self.messages, 'message')} ({self.messages_new} new, "
            f"{self.messages_existing} existing), {counted(self.memunits, 'memunit')}, "
            f"{counted(self.memories, 'memory', 'memories')} in "
            f"{elapsed_s:.1f} s ({rate:.1f} messages/s)"
        )

    def listing(self) -> str:
        """The users and sessions the import stored into, one line each, ids first."""
        lines: list[str] = []
        user = None
        for user_id, name, session_id, title, count in self.made:
            if user_id != user:
                lines.append(f"user {user_id} ({name})")
                user = user_id
            lines.append(f"  session {session_id}  {title}  {counted(count, 'message')}")
        return "\n".join(lines)


def import_session_id(user_id: str, key: str) -> str:
    """The fixed id of the imported session ``key`` of ``user_id``."""
    return derived_id(IdKind.SESSION, "import", user_id, key)


async def import_conversations(
    services: Services,
    sessions: UserStore,
    conversations: Sequence[ConversationImport],
    *,
    chunk_size: int,
    clock: Clock,
    principal: Principal = SETTINGS_ADMIN,
    progress: Progress | None = None,
) -> ImportReport:
    """Store ``conversations`` through memorize; ``progress`` hears of each chunk's messages.

    ``sessions`` is the session store itself: the use cases only make
    sessions with fresh random ids, and an import needs its fixed ones.
    Every message is checked against the services' limits before anything
    is written, so a refused file writes nothing; a refusal names where it is
    in the file. What stops an import midway (the graph going away) leaves
    what came before it, and importing again resumes, since nothing is
    created twice.
    """
    _check_messages(services, conversations, chunk_size)
    report = ImportReport()
    for conversation in conversations:
        try:
            await _import_one(
                services, sessions, conversation, report, chunk_size, clock, principal, progress
            )
        except InvalidInput as exc:
            raise InvalidInput(f"{conversation.source}: {exc.message}", exc.field) from exc
        report.conversations += 1
    return report


def _check_messages(
    services: Services, conversations: Sequence[ConversationImport], chunk_size: int
) -> None:
    """Every message as the services will take it, before anything is written.

    The file's shape was checked as it was read; the services' own limits (a
    message's length among them) are settings the reader does not know. A
    message over one then refuses the whole file, naming where it is, rather
    than stopping the import halfway with a user and session made for it.
    """
    for conversation in conversations:
        for session in conversation.sessions:
            where = conversation.source
            if len(conversation.sessions) > 1:
                where += f", {session.title or session.key}"
            for start in range(0, len(session.messages), chunk_size):
                chunk = session.messages[start : start + chunk_size]
                try:
                    services.messages.build(session.key, conversation.user_id, chunk, first=start)
                except InvalidInput as exc:
                    raise InvalidInput(f"{where}: {exc.message}", exc.field) from exc


async def _import_one(
    services: Services,
    sessions: UserStore,
    conversation: ConversationImport,
    report: ImportReport,
    chunk_size: int,
    clock: Clock,
    principal: Principal,
    progress: Progress | None,
) -> None:
    user_id = conversation.user_id
    for person in conversation.people:
        if await services.users.get_user(principal, person.user_id) is None:
            try:
                await services.users.create_user(principal, person.user_id, person.name)
                report.users_created += 1
            except Conflict:
                pass  # created by someone else since we looked: theirs will do
    user_ids = tuple(p.user_id for p in conversation.people)
    for session in conversation.sessions:
        session_id = await _ensure_session(
            services, sessions, principal, user_id, session, clock, report
        )
        messages = session.messages
        report.made.append(
            (user_id, conversation.user_name, session_id, session.title, len(messages))
        )
        for start in range(0, len(messages), chunk_size):
            chunk = messages[start : start + chunk_size]
            outcome = await services.memorize.memorize(
                principal,
                MemorizeRequest(
                    # Each speaker's words go to the user named as they are.
                    user_ids=user_ids,
                    session_id=session_id,
                    messages=tuple(chunk),
                    run_async=False,
                    # Later chunks continue the conversation: let its open tail
                    # wait for them rather than cut a unit at a chunk boundary.
                    flush=start + chunk_size >= len(messages),
                ),
            )
            created = len(outcome.added.created_ids)
            report.messages_new += created
            report.messages_existing += len(outcome.added.messages) - created
            if outcome.counts is not None:
                report.memunits += outcome.counts.memunits
                report.memories += outcome.counts.memories
                report.superseded += outcome.counts.superseded
            if progress is not None:
                progress(len(chunk))


async def _ensure_session(
    services: Services,
    sessions: UserStore,
    principal: Principal,
    user_id: str,
    session: SessionImport,
    clock: Clock,
    report: ImportReport,
) -> str:
    session_id = import_session_id(user_id, session.key)
    if session_id in await services.users.get_sessions(principal, [session_id]):
        return session_id
    record = Session(
        id=session_id,
        user_id=user_id,
        title=session.title,
        started_at=session.started_at or clock(),
    )
    if not await sessions.create_session(record):
        raise NotFound("user", user_id)
    report.sessions_created += 1
    return session_id
