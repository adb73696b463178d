"""Addresses and sizes in the settings: refused when read, shown without passwords.

A Redis URL of ``localhost:6379`` or a graph URI of ``notauri`` used to pass
the settings and fail later with a driver's traceback; a JVM heap of
``lots`` failed inside ArcadeDB's start. Each is now refused as the
settings are read, with the variable that set it (``hippograph.cli._settings``).
A URL may carry a password (``redis://:secret@host``): what is printed or
logged shows it as ``***``.
"""

from __future__ import annotations

import re
from urllib.parse import SplitResult, urlsplit

REDIS_SCHEMES = ("redis", "rediss", "unix")
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
# What the JVM's -Xmx takes: a number of bytes, or of kilo-, mega-, gigabytes.
_JVM_SIZE = re.compile(r"\d+[kKmMgG]?")
# The device types PyTorch names, with an optional index (cuda:1).
_DEVICE = re.compile(r"(cpu|cuda|mps|xpu|hpu|npu|xla|mtia)(:\d+)?")


def shown(url: str) -> str:
    """``url`` with any password replaced by ``***``, for logs and messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def _address(url: str, schemes: tuple[str, ...], what: str) -> SplitResult:
    parts = urlsplit(url)
    if parts.scheme not in schemes:
        starts = ", ".join(f"{s}://" for s in schemes)
        raise ValueError(f"{shown(url)!r} is not {what}: it starts with one of {starts}")
    try:
        parts.port  # noqa: B018 - reading it checks it
    except ValueError:
        raise ValueError(f"{shown(url)!r}: the port is not a number from 0 to 65535") from None
    return parts


def redis_url(url: str) -> str:
    """``url`` if it is a Redis address (a pydantic validator)."""
    parts = _address(url, REDIS_SCHEMES, "a Redis URL")
    if parts.scheme != "unix" and not parts.hostname:
        raise ValueError(f"{shown(url)!r} names no host")
    return url


def bolt_uri(uri: str | None) -> str | None:
    """``uri`` if it is a Bolt address, or None (a pydantic validator)."""
    if uri is not None and not _address(uri, BOLT_SCHEMES, "a Bolt URI").hostname:
        raise ValueError(f"{shown(uri)!r} names no host")
    return uri


def jvm_size(size: str) -> str:
    """``size`` if the JVM takes it as a heap size (``2g``, ``512m``)."""
    if not _JVM_SIZE.fullmatch(size):
        raise ValueError(f"{size!r} is not a heap size: a number with k, m or g (2g, 512m)")
    return size


def torch_device(device: str) -> str:
    """``device`` if PyTorch has such a device type (``cpu``, ``cuda``, ``cuda:1``, ``mps``)."""
    if not _DEVICE.fullmatch(device):
        raise ValueError(f"{device!r} is not a device: cpu, cuda, cuda:N, mps, xpu…")
    return device
