"""Deleting a message, MemUnit or session with everything derived only from it."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Protocol

from hippograph.auth import Principal
from hippograph.cascade import (
    MAX_CASCADE_NODES,
    ROOT_KINDS,
    DeletionReport,
    DerivationClosure,
    deletion_report,
    root_label,
    too_large,
)
from hippograph.errors import Conflict, InvalidInput, NotFound
from hippograph.ids import kind_of


class CascadeStore(Protocol):
    """Derivation closures and the deletes planned over them (graph/cascade.py)."""

    async def closure(
        self, root_id: str, scope: list[str] | None, limit: int
    ) -> DerivationClosure | None: ...
    async def delete(
        self, root_id: str, expected: Collection[str], scope: list[str] | None, limit: int
    ) -> None: ...


class CascadeService:
    """Reports and applies deletions that follow provenance, scoped to a principal."""

    def __init__(self, store: CascadeStore, limit: int = MAX_CASCADE_NODES) -> None:
        self._store = store
        self._limit = limit

    async def deletion_report(self, principal: Principal, node_id: str) -> DeletionReport:
        """What deleting ``node_id`` would remove, and what it would keep.

        ``NotFound`` when the node is missing or belongs to a user this key may
        not see; ``InvalidInput`` for another kind of id or a deletion that
        reaches more nodes than the limit.
        """
        if kind_of(node_id) not in ROOT_KINDS:
            raise InvalidInput("id must be a message, MemUnit or session id", "id")
        closure = await self._store.closure(node_id, principal.scope, self._limit)
        if closure is None:
            raise NotFound(root_label(node_id), node_id)
        if not closure.complete:
            raise too_large(node_id, self._limit)
        return deletion_report(node_id, closure)

    async def delete_with_provenance(
        self,
        principal: Principal,
        node_id: str,
        *,
        dry_run: bool = True,
        expected: Collection[str] | None = None,
    ) -> DeletionReport:
        """Report, and unless ``dry_run`` delete, ``node_id`` and what derives only from it.

        ``expected`` are the ids a client confirmed from an earlier report: if
        the plan is no longer exactly those, nothing is deleted (``Conflict``).
        The delete itself re-checks the plan in its transaction, so a node
        derived between this report and the write also stops it.
        """
        report = await self.deletion_report(principal, node_id)
        if expected is not None and frozenset(expected) != report.deleted_ids:
            raise Conflict(
                f"what derives from {node_id!r} changed since the report: "
                "ask for a new report and confirm that one"
            )
        if dry_run:
            return report
        await self._store.delete(node_id, report.deleted_ids, principal.scope, self._limit)
        return replace(report, applied=True)
