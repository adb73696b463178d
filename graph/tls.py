"""The one TLS context this process's HTTP clients to a graph server share.

Making one reads the CA bundle: about 20 ms of CPU, which every new httpx
client paid, even for a plain-HTTP loopback server (each start's index
setup, each create and drop of an embedded database).
"""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def shared_context() -> ssl.SSLContext:
    """httpx's default context (it honours ``SSL_CERT_FILE``), made once."""
    return httpx.create_ssl_context()
