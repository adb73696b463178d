"""Forgetting policy: for each memory, keep, fuzz, promote or delete — and why.

One policy per run (docs/design.md §7):

* ``FUZZ`` (the default, note 002) never deletes: each memory moves to the
  level its weight on the fuzz curve (hyperbolic) gives, down as it fades,
  back up once recalled.
* ``SOFT_DELETE`` (notes 001 and 004) marks deleted what has faded below
  ``soft_delete_below`` on its curve (Ebbinghaus), an episode not recalled
  for ``episode_max_age_days``, and a fact whose importance is under the floor.

Time is counted from the memory's last access, which starts when it was
learned: an imported conversation of 2023 is as fresh today as one told
today, and fades from here.
* ``HARD_DELETE`` (note 000) removes, with what derives only from them,
  memories below an importance threshold (``importance_based``), older than a
  maximum age (``time_based``), or beyond a capacity, keeping the most
  important (``capacity_based``).

Every policy first promotes facts whose importance reached ``promote_at``
to the core category (note 004), which never decays. Reflections and
memories of the core and system categories are exempt unless the request
names them by id. Pure: ``now`` comes in, the caller reads and writes.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from hippograph.entities import renaming
from hippograph.errors import InvalidInput
from hippograph.models import EntityMention, IndexedText, MemoryCategory, MemoryKind, MemoryLevel
from hippograph.retention import (
    LEVEL_ORDER,
    Curve,
    LevelThresholds,
    Recall,
    RetentionParams,
    level_for,
    retention,
)

MAX_NAMED = 1000

RankKey = tuple[int, float, float, str]


class ForgetPolicy(StrEnum):
    """What a forget run may do."""

    FUZZ = "fuzz"
    SOFT_DELETE = "soft_delete"
    HARD_DELETE = "hard_delete"


class HardDeleteStrategy(StrEnum):
    """Note 000's three ways of choosing what a hard deletion removes."""

    IMPORTANCE_BASED = "importance_based"
    TIME_BASED = "time_based"
    CAPACITY_BASED = "capacity_based"


class Action(StrEnum):
    """What a run does to one memory."""

    FUZZ = "fuzz"  # down one or more levels
    RESTORE = "restore"  # back up (recalled, boosted or promoted)
    PROMOTE = "promote"  # to the core category (may also restore)
    SOFT_DELETE = "soft_delete"
    HARD_DELETE = "hard_delete"


@dataclass(frozen=True, slots=True)
class ForgetRules:
    """The configurable part of the policy (``settings.forgetting``)."""

    fuzz_curve: Curve = Curve.HYPERBOLIC
    soft_delete_curve: Curve = Curve.EBBINGHAUS
    soft_delete_below: float = 0.1
    thresholds: LevelThresholds = field(default_factory=LevelThresholds)
    params: RetentionParams = field(default_factory=RetentionParams)
    episode_max_age_days: float = 14.0  # 0: episodes never expire
    fact_importance_floor: float = 0.3
    promote_at: float = 0.95  # above 1: never promote


@dataclass(frozen=True, slots=True)
class ForgetRequest:
    """One run's question: whose memories, under which policy and parameters."""

    user_id: str
    policy: ForgetPolicy = ForgetPolicy.FUZZ
    strategy: HardDeleteStrategy | None = None
    threshold: float | None = None
    max_age_days: float | None = None
    max_capacity: int | None = None
    memory_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # A memory named twice is one memory: counted, decided and written once.
        object.__setattr__(self, "memory_ids", tuple(dict.fromkeys(self.memory_ids)))
        check_request(self)


def check_request(r: ForgetRequest) -> None:
    """``InvalidInput`` naming the field when the request does not make sense."""
    hard = r.policy is ForgetPolicy.HARD_DELETE
    if hard and r.strategy is None:
        raise InvalidInput("HARD_DELETE needs a strategy", "strategy")
    if not hard and r.strategy is not None:
        raise InvalidInput("a strategy is only for HARD_DELETE", "strategy")
    if r.threshold is not None and not 0.0 <= r.threshold <= 1.0:
        raise InvalidInput("threshold must be between 0 and 1", "threshold")
    if r.max_age_days is not None and not r.max_age_days > 0:
        raise InvalidInput("maxAgeDays must be above 0", "maxAgeDays")
    if r.max_capacity is not None and r.max_capacity < 0:
        raise InvalidInput("maxCapacity must be 0 or more", "maxCapacity")
    if r.strategy is HardDeleteStrategy.TIME_BASED and r.max_age_days is None:
        raise InvalidInput("the time_based strategy needs maxAgeDays", "maxAgeDays")
    if r.strategy is HardDeleteStrategy.CAPACITY_BASED and r.max_capacity is None:
        raise InvalidInput("the capacity_based strategy needs maxCapacity", "maxCapacity")
    # A limit only its own strategy reads: given with another, it would be
    # dropped, and a caller who expected the limits to combine would delete more.
    for value, name, strategy in (
        (r.threshold, "threshold", HardDeleteStrategy.IMPORTANCE_BASED),
        (r.max_age_days, "maxAgeDays", HardDeleteStrategy.TIME_BASED),
        (r.max_capacity, "maxCapacity", HardDeleteStrategy.CAPACITY_BASED),
    ):
        if value is not None and r.strategy is not strategy:
            raise InvalidInput(f"{name} is only for the {strategy.value} strategy", name)
    if len(r.memory_ids) > MAX_NAMED:
        raise InvalidInput(f"at most {MAX_NAMED} memoryIds at once", "memoryIds")


@dataclass(frozen=True, slots=True)
class Candidate:
    """What the policy reads of one memory."""

    id: str
    kind: MemoryKind
    category: MemoryCategory
    level: MemoryLevel
    importance: float
    created_at: datetime
    last_accessed_at: datetime
    access_count: int
    deleted: bool = False

    @property
    def rank_key(self) -> RankKey:
        """Capacity order: live before soft-deleted, most important, newest, then id."""
        return (int(self.deleted), -self.importance, -self.created_at.timestamp(), self.id)


@dataclass(frozen=True, slots=True)
class Decision:
    """What happens to one memory, with the weight that decided it."""

    memory_id: str
    action: Action
    weight: float
    from_level: MemoryLevel
    to_level: MemoryLevel
    promote: bool = False
    reason: str = ""


def is_exempt(c: Candidate, named: Collection[str]) -> bool:
    """Reflections, core and system memories are left alone unless named."""
    special = c.kind is MemoryKind.REFLECTION or c.category in (
        MemoryCategory.CORE,
        MemoryCategory.SYSTEM,
    )
    return special and c.id not in named


def decide(
    c: Candidate,
    request: ForgetRequest,
    rules: ForgetRules,
    now: datetime,
    capacity_cutoff: RankKey | None = None,
) -> Decision | None:
    """What ``request`` does to ``c`` at ``now``; None to leave it as it is.

    ``capacity_cutoff`` is the rank key of the first memory over capacity
    (capacity_based only; None when the user is within capacity).
    """
    named = request.memory_ids
    # A deleted fact is not promoted: it would become exempt, and no unnamed run
    # could purge it.
    promote = (
        not c.deleted and c.category is MemoryCategory.FACT and c.importance >= rules.promote_at
    )
    category = MemoryCategory.CORE if promote else c.category
    # A memory named explicitly loses its exemption, and decays as a fact does.
    speed = (
        rules.params.speeds.get(MemoryCategory.FACT, 1.0)
        if c.id in named and category in (MemoryCategory.CORE, MemoryCategory.SYSTEM)
        else None
    )
    recall = Recall(c.last_accessed_at, c.access_count, c.importance, category)
    if is_exempt(c, named) and not promote:
        # Exempt memories do not decay; one fuzzed before it became exempt comes back.
        if request.policy is ForgetPolicy.FUZZ and c.level is not MemoryLevel.FULL:
            return Decision(c.id, Action.RESTORE, 1.0, c.level, MemoryLevel.FULL)
        return None
    if request.policy is ForgetPolicy.FUZZ:
        weight = retention(recall, now, rules.fuzz_curve, rules.params, speed)
        target = level_for(weight, rules.thresholds)
        if target is c.level and not promote:
            return None
        action = Action.PROMOTE if promote else _direction(c.level, target)
        return Decision(c.id, action, weight, c.level, target, promote)
    weight = retention(recall, now, rules.soft_delete_curve, rules.params, speed)
    if promote:
        # Core memories never decay: a promoted one is full again whatever the policy.
        return Decision(c.id, Action.PROMOTE, weight, c.level, MemoryLevel.FULL, True)
    reason = (
        _soft_reason(c, weight, rules, now)
        if request.policy is ForgetPolicy.SOFT_DELETE
        else _hard_reason(c, request, rules, now, capacity_cutoff)
    )
    if not reason:
        return None
    soft = request.policy is ForgetPolicy.SOFT_DELETE
    action = Action.SOFT_DELETE if soft else Action.HARD_DELETE
    return Decision(c.id, action, weight, c.level, c.level, reason=reason)


def _direction(current: MemoryLevel, target: MemoryLevel) -> Action:
    return Action.FUZZ if LEVEL_ORDER[target] > LEVEL_ORDER[current] else Action.RESTORE


def _age_days(c: Candidate, now: datetime) -> float:
    return (now - c.created_at).total_seconds() / 86400.0


def _unrecalled_days(c: Candidate, now: datetime) -> float:
    """Days since the memory was learned or last recalled (never its older event date)."""
    return (now - c.last_accessed_at).total_seconds() / 86400.0


def _soft_reason(c: Candidate, weight: float, rules: ForgetRules, now: datetime) -> str:
    if c.deleted:
        return ""
    if weight < rules.soft_delete_below:
        return f"retention {weight:.3f} below {rules.soft_delete_below:g}"
    max_age = rules.episode_max_age_days
    if c.category is MemoryCategory.EPISODE and max_age > 0 and _unrecalled_days(c, now) >= max_age:
        return f"episode not recalled for {max_age:g} days"
    if c.category is MemoryCategory.FACT and c.importance < rules.fact_importance_floor:
        return f"fact importance {c.importance:.2f} below {rules.fact_importance_floor:g}"
    return ""


def _hard_reason(
    c: Candidate,
    request: ForgetRequest,
    rules: ForgetRules,
    now: datetime,
    cutoff: RankKey | None,
) -> str:
    strategy = request.strategy
    if strategy is HardDeleteStrategy.IMPORTANCE_BASED:
        floor = rules.fact_importance_floor if request.threshold is None else request.threshold
        return f"importance {c.importance:.2f} below {floor:g}" if c.importance < floor else ""
    if strategy is HardDeleteStrategy.TIME_BASED:
        max_age = request.max_age_days or 0.0
        return f"older than {max_age:g} days" if _age_days(c, now) > max_age else ""
    if cutoff is not None and c.rank_key >= cutoff:
        return f"beyond the capacity of {request.max_capacity}"
    return ""


def needs_capacity_cutoff(request: ForgetRequest) -> bool:
    """Whether the run must first find the rank key of the first memory over capacity."""
    return request.strategy is HardDeleteStrategy.CAPACITY_BASED


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A level change to write: the new text with its vector and tokens.

    ``indexed`` is None when the text at the new level is the text the memory
    holds already (a one-clause fact is its own summary): the memory then
    keeps the vector and tokens it has, which may carry more than the text
    alone (a turn's context), and the indexes are left alone. ``named`` and
    ``unnamed`` are the entities the new text names and the old did not, and
    the norms of those it no longer names (``entities.renaming``).
    """

    memory_id: str
    from_level: MemoryLevel
    to_level: MemoryLevel
    content: str
    original_content: str
    indexed: IndexedText | None
    promote: bool = False
    named: tuple[EntityMention, ...] = ()
    unnamed: tuple[str, ...] = ()


def with_names(
    rewrites: Sequence[Rewrite],
    before: Mapping[str, str],
    created: Mapping[str, datetime],
    user_name: str,
) -> list[Rewrite]:
    """``rewrites`` with what each new text names that its text ``before`` did not,
    and what it no longer names (``entities.renaming``, read at the memory's
    creation ``created``, knowing the user's name)."""
    out = []
    for r in rewrites:
        at = created[r.memory_id]
        was = before[r.memory_id]
        named, unnamed = renaming(was, r.content, r.original_content, at, (user_name,))
        out.append(replace(r, named=named, unnamed=unnamed))
    return out


@dataclass(frozen=True, slots=True)
class BatchWrite:
    """Everything one batch changes, and where the run's cursor goes after it."""

    user_id: str
    now: datetime
    rewrites: Sequence[Rewrite] = ()
    promotions: Sequence[str] = ()
    soft_deletes: Sequence[str] = ()
    # As the run read them: the write deletes only those still so (graph/forgetting.py).
    hard_deletes: Sequence[Candidate] = ()
    job_id: str | None = None
    expected_cursor: str = ""
    cursor: str = ""
    progress: Mapping[str, int] | None = None
    # The page's decisions that the changes above carry out: one whose change
    # the write leaves undone is taken out of the progress it records.
    decisions: Sequence[Decision] = ()


@dataclass(frozen=True, slots=True)
class Applied:
    """What writing one batch did beyond what it was given.

    ``cascaded``: nodes removed along provenance besides the hard-deleted
    memories. ``kept``: the batch's decisions it left undone, their memories
    changed since the run read them (recalled, restored, edited, deleted),
    left to the next run.
    """

    cascaded: int = 0
    kept: tuple[Decision, ...] = ()
