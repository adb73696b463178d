"""Links that must find both their ends, or the write is undone and tried again.

Every writer that links a new node to existing ones (memorize's MemUnits and
memories, a memory added by hand, an update's new version, a restored dump)
counts the edges it made against the links it was given. Fewer means an end
is missing, and the transaction rolls back: nothing half-linked is kept.

Missing is not always gone. On embedded ArcadeDB, overlapping memorize runs
on one session now and then had a link match fewer committed messages than
exist. So a short count is treated like a lost race: ``GraphDriver.write``
runs the unit again, within the race budget, and only an end still missing
after that (hard-deleted meanwhile) is ``NotFound``.
"""

from __future__ import annotations


class Unlinked(Exception):
    """A link matched fewer ends than it was given (rolls its transaction back)."""

    def __init__(self, resource: str, detail: str) -> None:
        super().__init__(f"{resource}: {detail}")
        # What NotFound names once the retries are spent.
        self.resource = resource
        self.detail = detail


def require_linked(linked: int, expected: int, resource: str, detail: str) -> None:
    """Raise ``Unlinked`` unless all ``expected`` links found both ends."""
    if linked != expected:
        raise Unlinked(resource, detail)
