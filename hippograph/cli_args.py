"""What ``hippograph`` reads from its arguments: ranged numbers, and serve's address."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from hippograph.errors import ConfigError
from hippograph.settings import Settings


def port(text: str) -> int:
    """A TCP port (argparse type): 0 to 65535."""
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port (0 to 65535)")
    return value


def positive(text: str) -> int:
    """A count of 1 or more (argparse type)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not 1 or more")
    return value


def serving_settings(settings: Settings, host: str | None, port: int | None) -> Settings:
    """``settings`` with ``serve --host/--port`` in them, where given.

    The app reads its own address from the settings: the MCP endpoint's guard
    against DNS rebinding accepts only loopback Host headers when the address
    is a loopback one, so a ``--host 0.0.0.0`` it never saw refused every
    client that reached ``/mcp`` by a name.
    """
    api = settings.api.model_copy(
        update={
            "host": host or settings.api.host,
            "port": settings.api.port if port is None else port,
        }
    )
    return settings.model_copy(update={"api": api})


def writable_file(name: str) -> None:
    """``ConfigError`` unless a file ``name`` can be written (``-``, stdout, always can):
    checked before a command opens the graph, not after its work."""
    if name == "-":
        return
    folder = Path(name).parent
    if not folder.is_dir():
        raise ConfigError(f"cannot write {name}: the folder {folder} does not exist")
    if Path(name).is_dir():
        raise ConfigError(f"cannot write {name}: it is a folder")
    if not os.access(folder, os.W_OK):
        raise ConfigError(f"cannot write {name}: the folder {folder} is not writable")
