"""What importing a dump did: the nodes and edges it created, and those it found there.

The graph's import (``graph/dump.py``) counts them; ``hippograph import``
prints the summary.
"""

from __future__ import annotations

from dataclasses import dataclass

from hippograph.plural import counted


@dataclass(slots=True)
class DumpReport:
    """What an import wrote, and what it found already there."""

    nodes_created: int = 0
    nodes_existing: int = 0
    edges_created: int = 0
    edges_existing: int = 0

    def summary(self, elapsed_s: float) -> str:
        """The report as one line for a terminal."""
        total = self.nodes_created + self.nodes_existing + self.edges_created + self.edges_existing
        rate = total / elapsed_s if elapsed_s > 0 else 0.0
        return (
            f"{counted(self.nodes_created, 'node')} created ({self.nodes_existing} existed), "
            f"{counted(self.edges_created, 'edge')} created ({self.edges_existing} existed) "
            f"in {elapsed_s:.1f} s ({rate:.0f} lines/s)"
        )
