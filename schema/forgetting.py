"""The ``forget`` mutation's input and report (docs/design.md §7)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import strawberry

from hippograph import forget_report, forgetting
from hippograph.validation import require_listed
from schema.enums import MemoryLevel

strawberry.enum(
    forgetting.ForgetPolicy,
    description="FUZZ (never deletes: memories move between levels), SOFT_DELETE (marks "
    "faded memories deleted), HARD_DELETE (removes them, by a strategy).",
)
strawberry.enum(
    forgetting.HardDeleteStrategy,
    description="What HARD_DELETE removes: importance below `threshold`, age above "
    "`maxAgeDays`, or everything beyond the `maxCapacity` most important memories.",
)
strawberry.enum(
    forgetting.Action, name="ForgetAction", description="What a forget run does to one memory."
)


@strawberry.input(description="One forget run over a user's memories.")
class ForgetInput:
    user_id: strawberry.ID
    policy: forgetting.ForgetPolicy = forgetting.ForgetPolicy.FUZZ
    dry_run: bool = strawberry.field(
        default=False, description="Report what the run would do, and write nothing."
    )
    strategy: forgetting.HardDeleteStrategy | None = strawberry.field(
        default=None, description="Required with HARD_DELETE, refused otherwise."
    )
    threshold: float | None = strawberry.field(
        default=None, description="importance_based: delete below this (default: the fact floor)."
    )
    max_age_days: float | None = strawberry.field(
        default=None, description="time_based: delete memories created longer ago than this."
    )
    max_capacity: int | None = strawberry.field(
        default=None, description="capacity_based: keep this many, the most important."
    )
    memory_ids: list[strawberry.ID] | None = strawberry.field(
        default=None,
        description="Only these memories; naming a reflection or a core memory here is the "
        "only way to include it (they are exempt otherwise).",
    )
    run_async: bool = strawberry.field(
        default=False,
        name="async",
        description="Queue the run as a job (poll `job(id)`) instead of waiting for it.",
    )

    def to_domain(self) -> forgetting.ForgetRequest:
        """The domain request (``InvalidInput`` naming the field when it does not make sense)."""
        # An empty list read as "no list" would run over every memory.
        require_listed(self.memory_ids, "memoryIds", "memory")
        return forgetting.ForgetRequest(
            user_id=str(self.user_id),
            policy=self.policy,
            strategy=self.strategy,
            threshold=self.threshold,
            max_age_days=self.max_age_days,
            max_capacity=self.max_capacity,
            memory_ids=tuple(str(i) for i in self.memory_ids or ()),
        )


@strawberry.type(description="How many memories moved from one level to another.")
class LevelMove:
    from_level: MemoryLevel
    to_level: MemoryLevel
    count: int


@strawberry.type(description="What a forget run did (or would do), in numbers.")
class ForgetCounts:
    scanned: int = strawberry.field(description="Memories read.")
    exempt: int = strawberry.field(description="Reflections, core and system memories skipped.")
    unchanged: int
    changed: int
    promoted: int = strawberry.field(description="Facts promoted to the core category.")
    fuzzed: int = strawberry.field(description="Memories moved down one or more levels.")
    restored: int = strawberry.field(description="Memories moved back up (recalled, boosted).")
    soft_deleted: int
    hard_deleted: int
    cascaded: int = strawberry.field(
        description="Nodes removed with hard-deleted memories because they derived only from them."
    )
    batches: int = strawberry.field(description="Pages committed (or read, in a dry run).")
    level_moves: list[LevelMove]

    @classmethod
    def of(cls, counts: Mapping[str, int]) -> ForgetCounts:
        """The GraphQL view of a run's counters (a report's, or a forget job's)."""

        def n(name: str) -> int:
            return forget_report.count(counts, name)

        return cls(
            scanned=n("scanned"),
            exempt=n("exempt"),
            unchanged=n("unchanged"),
            changed=n("changed"),
            promoted=n("promoted"),
            fuzzed=n(forgetting.Action.FUZZ.value),
            restored=n(forgetting.Action.RESTORE.value),
            soft_deleted=n(forgetting.Action.SOFT_DELETE.value),
            hard_deleted=n(forgetting.Action.HARD_DELETE.value),
            cascaded=n("cascaded"),
            batches=n("batches"),
            level_moves=[
                LevelMove(from_level=m.from_level, to_level=m.to_level, count=m.count)
                for m in forget_report.moves(counts)
            ],
        )


@strawberry.type(description="What happened (or would) to one memory.")
class ForgetChange:
    memory_id: strawberry.ID
    action: forgetting.Action
    weight: float = strawberry.field(description="Its retention weight on the policy's curve.")
    from_level: MemoryLevel
    to_level: MemoryLevel
    promoted: bool
    reason: str = strawberry.field(description="Why a deleting policy chose it.")


@strawberry.type(description="The report of a forget run: the same for a dry run and a real one.")
class ForgetReport:
    user_id: strawberry.ID
    policy: forgetting.ForgetPolicy
    strategy: forgetting.HardDeleteStrategy | None
    dry_run: bool
    as_of: datetime = strawberry.field(description="The moment weights were computed for.")
    counts: ForgetCounts
    changes: list[ForgetChange] = strawberry.field(
        description=f"The first {forget_report.CHANGES_SHOWN} changes, in id order."
    )
    changes_truncated: bool

    @classmethod
    def of(cls, report: forget_report.ForgetReport) -> ForgetReport:
        """The GraphQL view of a report."""
        return cls(
            user_id=strawberry.ID(report.request.user_id),
            policy=report.request.policy,
            strategy=report.request.strategy,
            dry_run=report.dry_run,
            as_of=report.as_of,
            counts=ForgetCounts.of(report.counts),
            changes=[
                ForgetChange(
                    memory_id=strawberry.ID(d.memory_id),
                    action=d.action,
                    weight=d.weight,
                    from_level=d.from_level,
                    to_level=d.to_level,
                    promoted=d.promote,
                    reason=d.reason,
                )
                for d in report.changes
            ],
            changes_truncated=report.changes_truncated,
        )
