"""What a forget run did (or, dry, would do): counts, and the first changes in full.

A run goes batch by batch and may stop and resume; its counts are kept as a
flat ``{name: int}`` map (the job's progress) so a resumed run continues
them, and a report is rebuilt from that map.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
    total["changed"] += len(decisions)
    total["batches"] += 1
    for d in decisions:
        if d.promote:
            total["promoted"] += 1
        if d.action is not Action.PROMOTE:
            total[d.action.value] = total.get(d.action.value, 0) + 1
        if d.from_level is not d.to_level:
            key = f"level:{d.from_level.value}>{d.to_level.value}"
            total[key] = total.get(key, 0) + 1
    return total
