"""The reports of deletions that follow provenance (``deleteWithProvenance``, ``deleteUser``)."""

from __future__ import annotations

import strawberry

from hippograph import cascade
from hippograph.services.user_deletion import UserDeletion as UserDeletionRecord
from schema.memory import node_type
from schema.types import Node, Session


@strawberry.type(description="How many nodes of each label the deletion removes.")
class DeletionCounts:
    sessions: int
    messages: int
    mem_units: int
    memories: int


@strawberry.type(
    description="What deleting `root` removes: the root and everything derived only from it "
    "(`deleted`), and what stays because it is also derived from other sources (`kept`). "
    "`applied` says whether it was deleted or only reported (a dry run)."
)
class DeletionReport:
    root: strawberry.ID
    applied: bool
    deleted: list[Node]
    kept: list[Node] = strawberry.field(
        description="Nodes derived from a deleted node that stay: they have other sources too."
    )
    counts: DeletionCounts

    @classmethod
    def of(cls, report: cascade.DeletionReport) -> DeletionReport:
        """The GraphQL view of a deletion report."""
        deleted: list[Node] = [Session.of(report.session)] if report.session else []
        deleted.extend(node_type(n) for n in report.deleted)
        return cls(
            root=strawberry.ID(report.root_id),
            applied=report.applied,
            deleted=deleted,
            kept=[node_type(n) for n in report.kept],
            counts=DeletionCounts(
                sessions=report.counts.get("Session", 0),
                messages=report.counts.get("Message", 0),
                mem_units=report.counts.get("MemUnit", 0),
                memories=report.counts.get("Memory", 0),
            ),
        )


@strawberry.type(
    description="What forgetting a user removes: their sessions with the messages in them, "
    "their memories, and everything derived only from these, then the user. `applied` "
    "says whether it was deleted or only reported (a dry run)."
)
class UserDeletion:
    user_id: strawberry.ID
    applied: bool
    counts: DeletionCounts
    other_users_nodes: int = strawberry.field(
        description="How many of the removed nodes belong to other users: what they drew "
        "only from this user's conversations."
    )
    kept: int = strawberry.field(
        description="Nodes that stay although they lose a source: they have others too."
    )

    @classmethod
    def of(cls, outcome: UserDeletionRecord) -> UserDeletion:
        """The GraphQL view of a user's deletion."""
        return cls(
            user_id=strawberry.ID(outcome.user_id),
            applied=outcome.applied,
            counts=DeletionCounts(
                sessions=outcome.counts["Session"],
                messages=outcome.counts["Message"],
                mem_units=outcome.counts["MemUnit"],
                memories=outcome.counts["Memory"],
            ),
            other_users_nodes=outcome.others,
            kept=outcome.kept,
        )
