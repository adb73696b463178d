"""The per-request context: services, the caller, and this request's DataLoaders."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import strawberry

from hippograph.auth import Principal
from hippograph.errors import Unauthenticated
from hippograph.services import Services

if TYPE_CHECKING:
    from resolvers.loaders import Loaders


@dataclass
class Context:
    """What every resolver gets in ``info.context``."""

    services: Services
    loaders: Loaders
    caller: Principal | None
    request: Any = None
    response: Any = None
    # A websocket's ``connection_init`` payload (strawberry sets it; None over HTTP).
    connection_params: dict[str, object] | None = None
    # The key a websocket was admitted with: its subscriptions check it again.
    api_key: str | None = None

    @property
    def principal(self) -> Principal:
        """The authenticated caller; ``Unauthenticated`` when the request had no key."""
        if self.caller is None:
            raise Unauthenticated("send an API key: Authorization: Bearer <key>")
        return self.caller

    async def current_principal(self) -> Principal:
        """The caller as its key stands now (``Unauthenticated`` once it is revoked).

        Over HTTP that is :attr:`principal`; a websocket's key is looked up
        again (through the key cache), since a connection can outlive it.
        """
        if self.api_key is None:
            return self.principal
        return await self.services.keys.authenticate(self.api_key)


Info = strawberry.Info[Context, None]
