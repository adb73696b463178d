"""Whose address a request is: the connection's, unless a proxy you named forwarded it."""

from __future__ import annotations

import re

import pytest

from hippograph.server.forwarded import client_behind, networks
from hippograph.settings import ApiSettings

PROXIES = networks(["10.0.0.0/8", "127.0.0.1"])


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("203.0.113.7", "198.51.100.1", "203.0.113.7"),  # not a proxy of ours: its word is ignored
        ("127.0.0.1", "198.51.100.1", "198.51.100.1"),
        ("127.0.0.1", "", "127.0.0.1"),
        # the nearest address that is not one of our proxies
        ("127.0.0.1", "198.51.100.9, 198.51.100.1, 10.1.2.3", "198.51.100.1"),
        ("127.0.0.1", "10.0.0.5, 10.0.0.6", "10.0.0.5"),  # all ours: the first
        ("127.0.0.1", "not-an-address", "127.0.0.1"),
        # an IPv4 proxy on a dual-stack bind connects as an IPv4-mapped address
        ("::ffff:10.0.0.2", "198.51.100.1", "198.51.100.1"),
        ("::ffff:203.0.113.7", "198.51.100.1", "::ffff:203.0.113.7"),
    ],
)
def test_the_client_is_read_from_trusted_proxies_only(
    peer: str, forwarded: str, client: str
) -> None:
    assert client_behind(peer, forwarded, PROXIES) == client


def test_nothing_is_trusted_by_default_and_a_bad_proxy_is_refused() -> None:
    assert ApiSettings().trusted_proxies == []
    assert client_behind("127.0.0.1", "198.51.100.1", networks([])) == "127.0.0.1"
    with pytest.raises(ValueError, match=re.escape("'proxy.example' is not an address")):
        ApiSettings(trusted_proxies=["proxy.example"])
