"""Provenance: walk from a node to the messages it came from, or back up."""

from __future__ import annotations

from typing import Protocol

from hippograph.auth import Principal
from hippograph.errors import InvalidInput
from hippograph.ids import IdKind, kind_of
from hippograph.models import Direction, Provenance
from hippograph.settings import LimitSettings
from hippograph.validation import require_count


class ProvenanceStore(Protocol):
    """Provenance walks."""

    async def walk(
        self, root_id: str, depth: int, direction: Direction, scope: list[str] | None
    ) -> Provenance | None: ...


_ROOT_KINDS = (IdKind.MEMORY, IdKind.MEMUNIT, IdKind.MESSAGE)


class ProvenanceService:
    """Scoped provenance walks."""

    def __init__(self, store: ProvenanceStore, limits: LimitSettings) -> None:
        self._store = store
        self._limits = limits

    async def provenance(
        self, principal: Principal, node_id: str, depth: int, direction: Direction
    ) -> Provenance | None:
        """The subgraph within ``depth`` hops; None if the node is missing or not visible."""
        if kind_of(node_id) not in _ROOT_KINDS:
            raise InvalidInput("id must be a memory, MemUnit or message id", "id")
        require_count(depth, "depth", 1, self._limits.max_provenance_depth)
        return await self._store.walk(node_id, depth, direction, principal.scope)
