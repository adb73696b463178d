"""Forgetting a user who asks for it: the user and everything derived only from them.

What goes: every session the user owns, with its messages and whatever
derives only from them (``deleteWithProvenance`` of each session, so a
group conversation's other participant loses what they drew only from it,
and keeps what they also drew from elsewhere); then every memory of the
user's that is left (added directly, reflections) with what derives only
from it; then the user. A dry run (the default) reports it and changes
nothing. The real run deletes session by session and page by page, each a
transaction of its own, after a dry run of the whole: a refusal comes
before anything is deleted, and a run cut short is finished by a second.
The user goes last, once nothing of theirs is left: what was written for
them meanwhile is deleted in another pass. A dry run plans each session
alone, so a node drawn from two of the user's sessions shows as kept there,
and goes in the real run once both are gone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from hippograph.auth import Principal
from hippograph.cascade import MAX_CASCADE_NODES, DeletionReport, label_of, owners
from hippograph.errors import Conflict, NotFound
from hippograph.ids import require_user_id
from hippograph.services.cascade import CascadeService
from hippograph.services.users import UserService

# Memories read and deleted per transaction (each with what derives from it).
_PAGE = 500
# Passes over what a user holds before the user goes: more are needed only
# while writes for the user keep coming in during the deletion.
_ROUNDS = 3


class UserDeletionStore(Protocol):
    """A user's sessions and memories, and the writes that delete them (graph/user_deletion.py)."""

    async def sessions(self, user_id: str) -> list[str]: ...
    async def memories(self, user_id: str, after: str, limit: int) -> list[str]: ...
    async def memory_report(
        self, user_id: str, ids: Sequence[str], scope: list[str] | None, limit: int
    ) -> DeletionReport: ...
    async def delete_memories(
        self, user_id: str, ids: Sequence[str], scope: list[str] | None, limit: int
    ) -> DeletionReport: ...
    async def delete_user(self, user_id: str) -> bool: ...


@dataclass(slots=True)
class UserDeletion:
    """What deleting a user removes (or removed, when ``applied``), counted by label.

    ``others`` counts the removed nodes that belong to other users (what they
    drew only from this user's conversations); ``kept`` the nodes that stay
    although they lose a source.
    """

    user_id: str
    applied: bool = False
    counts: dict[str, int] = field(
        default_factory=lambda: {"Session": 0, "Message": 0, "MemUnit": 0, "Memory": 0}
    )
    others: int = 0
    kept: int = 0

    def add(self, report: DeletionReport, seen: set[str]) -> None:
        """Count ``report``'s nodes not counted yet (``seen`` holds those that are)."""
        nodes = [*report.deleted, *((report.session,) if report.session else ())]
        for node in nodes:
            if node.id in seen:
                continue
            seen.add(node.id)
            self.counts[label_of(node)] += 1
            if self.user_id not in owners(node):
                self.others += 1
        self.kept += sum(1 for n in report.kept if n.id not in seen)


class UserDeletionService:
    """Reports and applies the deletion of a user, scoped to a principal."""

    def __init__(
        self,
        store: UserDeletionStore,
        users: UserService,
        cascade: CascadeService,
        limit: int = MAX_CASCADE_NODES,
    ) -> None:
        self._store = store
        self._users = users
        self._cascade = cascade
        self._limit = limit

    async def delete_user(
        self, principal: Principal, user_id: str, *, dry_run: bool = True
    ) -> UserDeletion:
        """Report, and unless ``dry_run`` delete, ``user_id`` and what derives only from them.

        ``NotFound`` for a user that does not exist or that this key may not
        see, unless an admin asks and the user left sessions or memories
        behind: those go as the user's would. (A memory or a session written
        while its user was deleted outlived the user, before their creation
        needed the user.) ``Conflict`` (nothing deleted) when a limited key
        would destroy another user's data, as ``deleteWithProvenance`` refuses it.
        """
        user_id = require_user_id(user_id, "id")
        if await self._users.get_user(principal, user_id) is None and not (
            principal.admin and await self._left_behind(user_id)
        ):
            raise NotFound("user", user_id)
        planned = UserDeletion(user_id)
        await self._run(principal, planned, set(), apply=False)
        if dry_run:
            return planned
        # Planned whole first, so that a refusal (another user's data in a
        # later session, a cascade over the limit) comes before anything is
        # deleted, not after the sessions before the refused one are gone.
        outcome = UserDeletion(user_id)
        seen: set[str] = set()
        for round_ in range(1, _ROUNDS + 1):
            await self._run(principal, outcome, seen, apply=True)
            try:
                await self._store.delete_user(user_id)
                break
            except Conflict as exc:
                # Written while the rest went (a memorize or an addMemory that
                # found the user before): deleted too, in another round.
                if round_ == _ROUNDS:
                    raise Conflict(
                        f"writes for user {user_id!r} kept coming during the deletion "
                        f"({exc.message}); what was there is deleted, the user is not: "
                        "run it again once they stop"
                    ) from exc
        outcome.applied = True
        return outcome

    async def _left_behind(self, user_id: str) -> bool:
        """Whether a session or a memory of ``user_id`` is stored."""
        return bool(
            await self._store.sessions(user_id) or await self._store.memories(user_id, "", 1)
        )

    async def _run(
        self, principal: Principal, outcome: UserDeletion, seen: set[str], *, apply: bool
    ) -> None:
        """Every session of the user, then their other memories: reported, or deleted."""
        user_id = outcome.user_id
        for session_id in await self._store.sessions(user_id):
            # Each session's plan is read, and for real deleted, in its own
            # transaction, after the sessions before it are gone.
            report = await self._cascade.delete_with_provenance(
                principal, session_id, dry_run=not apply
            )
            outcome.add(report, seen)
        await self._memories(user_id, principal.scope, outcome, seen, apply=apply)

    async def _memories(
        self,
        user_id: str,
        scope: list[str] | None,
        outcome: UserDeletion,
        seen: set[str],
        *,
        apply: bool,
    ) -> None:
        """The user's memories no session led to, a page at a time."""
        after = ""
        while page := await self._store.memories(user_id, after, _PAGE):
            after = page[-1]
            left = [m for m in page if m not in seen]
            if not left:
                continue
            if apply:
                report = await self._store.delete_memories(user_id, left, scope, self._limit)
            else:
                report = await self._store.memory_report(user_id, left, scope, self._limit)
            outcome.add(report, seen)
