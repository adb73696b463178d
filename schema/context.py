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

    @property
    def principal(self) -> Principal:
        """The authenticated caller; ``Unauthenticated`` when the request had no key."""
        if self.caller is None:
            raise Unauthenticated("send an API key: Authorization: Bearer <key>")
        return self.caller


Info = strawberry.Info[Context, None]
