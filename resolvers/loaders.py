"""Per-request DataLoaders: built in the context getter, never shared between requests.

Each loader is scoped to the request's principal, so a batch can never return
what the caller may not see, and its cache dies with the request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from strawberry.dataloader import DataLoader

from hippograph import models
from hippograph.auth import Principal
from hippograph.errors import HippoError
from hippograph.services import Services

PageKey = tuple[str, int, str | None]
T = TypeVar("T")


@dataclass(frozen=True)
class Loaders:
    """The DataLoaders of one request."""

    users: DataLoader[str, models.User | None]
    sessions: DataLoader[str, models.Session | None]
    memories: DataLoader[str, models.Memory | None]
    derived_from: DataLoader[str, list[models.ProvenanceNode]]
    summarizes: DataLoader[str, list[models.Memory]]
    summarized_by: DataLoader[str, list[models.Memory]]
    memunit_messages: DataLoader[str, list[models.Message]]
    session_messages: DataLoader[PageKey, models.Page[models.Message]]
    user_sessions: DataLoader[PageKey, models.Page[models.Session]]


def _distinct(keys: list[str]) -> list[str]:
    """``keys`` once each, in order. Without a cache (a websocket connection) a
    batch may hold one key twice, and the graph's list reads would return each
    row twice: every key's list or page would then repeat its items."""
    return list(dict.fromkeys(keys))


def _by_id(
    fetch: Callable[[Sequence[str]], Awaitable[dict[str, T]]],
) -> Callable[[list[str]], Awaitable[list[T | None]]]:
    async def load(keys: list[str]) -> list[T | None]:
        found = await fetch(_distinct(keys))
        return [found.get(key) for key in keys]

    return load


def _lists(
    fetch: Callable[[list[str]], Awaitable[dict[str, list[T]]]],
) -> Callable[[list[str]], Awaitable[list[list[T]]]]:
    """A loader of each key's list (empty when the key has none), each key fetched once."""

    async def load(keys: list[str]) -> list[list[T]]:
        found = await fetch(_distinct(keys))
        return [found.get(key, []) for key in keys]

    return load


def _paged(
    fetch: Callable[[list[str], int, str | None], Awaitable[dict[str, models.Page[T]]]],
) -> Callable[[list[PageKey]], Awaitable[list[models.Page[T] | BaseException]]]:
    """Batch page requests that share (first, after) into one call each."""

    async def load(keys: list[PageKey]) -> list[models.Page[T] | BaseException]:
        groups: dict[tuple[int, str | None], list[str]] = {}
        for parent, first, after in keys:
            parents = groups.setdefault((first, after), [])
            if parent not in parents:
                parents.append(parent)
        results: dict[PageKey, models.Page[T] | BaseException] = {}
        for (first, after), parents in groups.items():
            try:
                pages = await fetch(parents, first, after)
            except HippoError as exc:
                for parent in parents:
                    results[(parent, first, after)] = exc
                continue
            for parent in parents:
                results[(parent, first, after)] = pages[parent]
        return [results[key] for key in keys]

    return load


def build_loaders(
    services: Services, principal: Principal | None, *, cache: bool = True
) -> Loaders:
    """Fresh loaders for one request by ``principal`` (no principal: every load fails).

    ``cache`` false for a websocket connection: its context lives as long as
    the connection, and a cache would serve old values and grow without end;
    loads within one event are still batched.
    """
    who = principal or Principal(key_id="anonymous", admin=False)

    async def derived(ids: list[str]) -> dict[str, list[models.ProvenanceNode]]:
        return await services.memories.derived_from(who, ids)

    async def summarized(ids: list[str]) -> dict[str, list[models.Memory]]:
        return await services.memories.summaries(who, ids, by=False)

    async def summarizing(ids: list[str]) -> dict[str, list[models.Memory]]:
        return await services.memories.summaries(who, ids, by=True)

    async def unit_messages(ids: list[str]) -> dict[str, list[models.Message]]:
        return await services.messages.messages_of_memunits(who, ids)

    async def session_pages(
        ids: list[str], first: int, after: str | None
    ) -> dict[str, models.Page[models.Message]]:
        return await services.messages.messages_of_sessions(who, ids, first, after)

    async def user_pages(
        ids: list[str], first: int, after: str | None
    ) -> dict[str, models.Page[models.Session]]:
        return await services.users.sessions_of_users(who, ids, first, after)

    return Loaders(
        users=DataLoader(_by_id(lambda ids: services.users.get_users(who, ids)), cache=cache),
        sessions=DataLoader(_by_id(lambda ids: services.users.get_sessions(who, ids)), cache=cache),
        memories=DataLoader(
            _by_id(lambda ids: services.memories.get_memories(who, ids)), cache=cache
        ),
        derived_from=DataLoader(_lists(derived), cache=cache),
        summarizes=DataLoader(_lists(summarized), cache=cache),
        summarized_by=DataLoader(_lists(summarizing), cache=cache),
        memunit_messages=DataLoader(_lists(unit_messages), cache=cache),
        session_messages=DataLoader(_paged(session_pages), cache=cache),
        user_sessions=DataLoader(_paged(user_pages), cache=cache),
    )
