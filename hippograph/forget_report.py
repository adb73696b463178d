"""What a forget run did (or, dry, would do): counts, and the first changes in full.

A run goes batch by batch and may stop and resume; its counts are kept as a
flat ``{name: int}`` map (the job's progress) so a resumed run continues
them, and a report is rebuilt from that map.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from hippograph.forgetting import Action, Decision, ForgetRequest
from hippograph.models import MemoryLevel
from hippograph.ports import Usage
from hippograph.retention import LEVEL_ORDER

CHANGES_SHOWN = 100
_SCALARS = ("scanned", "exempt", "unchanged", "changed", "promoted", "cascaded", "batches")


@dataclass(frozen=True, slots=True)
class LevelMove:
    """How many memories moved from one level to another."""

    from_level: MemoryLevel
    to_level: MemoryLevel
    count: int


@dataclass(frozen=True, slots=True)
class ForgetReport:
    """A run's report. ``changes`` holds the first ``CHANGES_SHOWN`` decisions."""

    request: ForgetRequest
    dry_run: bool
    as_of: datetime
    counts: Mapping[str, int] = field(default_factory=dict)
    changes: tuple[Decision, ...] = ()
    usage: Usage = field(default_factory=Usage)

    def count(self, name: str) -> int:
        """One of the counters (see :func:`count`)."""
        return count(self.counts, name)

    @property
    def changes_truncated(self) -> bool:
        """True when more memories changed than ``changes`` shows."""
        return len(self.changes) < count(self.counts, "changed")

    def without(self, ids: Iterable[str]) -> ForgetReport:
        """This report without the changes of ``ids`` shown (memories left alone)."""
        gone = set(ids)
        if not gone:
            return self
        return replace(self, changes=tuple(d for d in self.changes if d.memory_id not in gone))

    def showing(self, decisions: Iterable[Decision]) -> ForgetReport:
        """This report with ``decisions`` added to the changes shown, up to the cap."""
        room = CHANGES_SHOWN - len(self.changes)
        if room <= 0:
            return self
        return replace(self, changes=(*self.changes, *list(decisions)[:room]))


def count(counts: Mapping[str, int], name: str) -> int:
    """One counter: ``scanned``, ``exempt``, ``unchanged``, ``changed``, ``promoted``,
    ``cascaded`` (derived nodes removed with hard-deleted memories), ``batches``, or
    an action (``fuzz``, ``restore``, ``soft_delete``, ``hard_delete``)."""
    return int(counts.get(name, 0))


def moves(counts: Mapping[str, int]) -> tuple[LevelMove, ...]:
    """Level changes, by (from, to), in level order."""
    found = []
    for key, n in counts.items():
        if key.startswith("level:"):
            source, target = key[6:].split(">")
            found.append(LevelMove(MemoryLevel(source), MemoryLevel(target), int(n)))
    found.sort(key=lambda m: (LEVEL_ORDER[m.from_level], LEVEL_ORDER[m.to_level]))
    return tuple(found)


def tally(
    counts: Mapping[str, int], scanned: int, exempt: int, decisions: list[Decision]
) -> dict[str, int]:
    """``counts`` plus one batch: scanned, exempt, unchanged, per action and per level move.

    ``cascaded`` is known only once the batch is written; the writer adds it.
    """
    total = {name: int(counts.get(name, 0)) for name in _SCALARS}
    total.update({k: int(v) for k, v in counts.items() if k not in total})
    total["scanned"] += scanned
    total["exempt"] += exempt
    total["unchanged"] += scanned - exempt - len(decisions)
    total["batches"] += 1
    _count(total, decisions, 1)
    return total


def left_alone(counts: Mapping[str, int], kept: Sequence[Decision]) -> dict[str, int]:
    """``counts`` with the ``kept`` decisions taken back: their memories had changed
    since the run read them, and the write left them unchanged (``Applied.kept``)."""
    total = {k: int(v) for k, v in counts.items()}
    if kept:
        _count(total, kept, -1)
        total["unchanged"] = total.get("unchanged", 0) + len(kept)
    # A level move none made is no move at all (levelMoves lists the keys).
    return {k: v for k, v in total.items() if v or not k.startswith("level:")}


def _count(total: dict[str, int], decisions: Sequence[Decision], sign: int) -> None:
    """Add (``sign`` 1) or take back (-1) what ``decisions`` count: changed, per
    action, promoted, per level move."""
    total["changed"] = total.get("changed", 0) + sign * len(decisions)
    for d in decisions:
        if d.promote:
            total["promoted"] = total.get("promoted", 0) + sign
        if d.action is not Action.PROMOTE:
            total[d.action.value] = total.get(d.action.value, 0) + sign
        if d.from_level is not d.to_level:
            key = f"level:{d.from_level.value}>{d.to_level.value}"
            total[key] = total.get(key, 0) + sign
