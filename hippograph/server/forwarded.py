"""The client's address behind a reverse proxy, taken only from proxies you name.

``X-Forwarded-For`` is whatever the sender wrote. Trusted from every
loopback peer (uvicorn's default), anyone on the host, or anything a
same-host proxy passed along unchecked, could pick a new address per
request and with it a fresh rate-limit bucket. The header is read only
when the connection itself comes from an address in
``HIPPOGRAPH_API__TRUSTED_PROXIES`` (none by default); the client is then
the nearest address in the chain that is not a trusted proxy.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(proxies: Sequence[str]) -> tuple[Network, ...]:
    """The trusted proxies as networks (an address alone is a network of one)."""
    return tuple(ipaddress.ip_network(p.strip(), strict=False) for p in proxies if p.strip())


def _trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    # On a dual-stack bind an IPv4 proxy connects as ::ffff:10.0.0.2, which
    # is in no IPv4 network: it is read as the IPv4 address it carries.
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in trusted)


def client_behind(peer: str, forwarded: str, trusted: Sequence[Network]) -> str:
    """The client's address: ``peer``, or when it is a trusted proxy, the nearest
    untrusted address ``forwarded`` (an ``X-Forwarded-For`` chain) names."""
    if not _trusted(peer, trusted) or not forwarded.strip():
        return peer
    chain = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    for hop in reversed(chain):
        if not _trusted(hop, trusted):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # not an address: the proxy's word is worth nothing here
    return chain[0] if chain else peer


class ForwardedFor:
    """Sets the request's client from ``X-Forwarded-For`` when a trusted proxy sent it."""

    def __init__(self, app: ASGIApp, trusted: Sequence[Network]) -> None:
        self.app = app
        self.trusted = tuple(trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if self.trusted and scope["type"] in ("http", "websocket") and client:
            forwarded = ",".join(
                value.decode("latin-1")
                for name, value in scope.get("headers", [])
                if name == b"x-forwarded-for"
            )
            host = client_behind(client[0], forwarded, self.trusted)
            if host != client[0]:
                scope = {**scope, "client": (host, 0)}
        await self.app(scope, receive, send)
