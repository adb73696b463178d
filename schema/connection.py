"""One Relay-style connection for every paged list: ``Connection[T]`` of ``Edge[T]``.

A page type names itself by subclassing (``class UserConnection(Connection[User])``):
strawberry names the edge ``UserEdge`` from the generic, and the subclass keeps
the page's own description in the schema.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Self, TypeVar

import strawberry

from hippograph.models import Page

N = TypeVar("N")
D = TypeVar("D")


@strawberry.type(description="Where a page ends and whether another follows.")
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type
class Edge(Generic[N]):
    cursor: str
    node: N


@strawberry.type
class Connection(Generic[N]):
    edges: list[Edge[N]]
    page_info: PageInfo

    @classmethod
    def of(cls, page: Page[D], node: Callable[[D], N], cursor: Callable[[D], str]) -> Self:
        """The GraphQL view of a domain page: each item's ``node`` at its ``cursor``."""
        return cls(
            edges=[Edge(cursor=cursor(item), node=node(item)) for item in page.items],
            page_info=PageInfo(has_next_page=page.has_next, end_cursor=page.end_cursor),
        )
