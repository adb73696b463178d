"""One node a principal may see, by id, or ``NotFound``: what every ``require_*`` read does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

from hippograph.auth import Principal
from hippograph.errors import NotFound
from hippograph.ids import IdKind, require_id

T = TypeVar("T")


async def require_visible(
    read: Callable[[Principal, Sequence[str]], Awaitable[Mapping[str, T]]],
    principal: Principal,
    kind: IdKind,
    node_id: str,
    field: str,
) -> T:
    """The node ``node_id`` of ``kind`` as ``read`` (a service's batch read of the
    nodes ``principal`` may see) returns it.

    A malformed id is ``InvalidInput`` naming ``field``; a node ``read`` leaves
    out is ``NotFound``, whether it is missing or hidden (never tell which).
    """
    require_id(node_id, kind, field)
    node = (await read(principal, [node_id])).get(node_id)
    if node is None:
        raise NotFound(kind.name.lower(), node_id)
    return node
