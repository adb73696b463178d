"""The user's own folders for what HippoGraph keeps outside a data directory.

The XDG base directories, as every desktop tool reads them: caches (made
again when deleted) and installed data (which serving cannot make again).
"""

from __future__ import annotations

import os
from pathlib import Path


def user_cache(name: str) -> Path:
    """``$XDG_CACHE_HOME/hippograph/<name>``, else ``~/.cache/hippograph/<name>``."""
    return _base("XDG_CACHE_HOME", "~/.cache") / "hippograph" / name


def user_data(name: str) -> Path:
    """``$XDG_DATA_HOME/hippograph/<name>``, else ``~/.local/share/hippograph/<name>``."""
    return _base("XDG_DATA_HOME", "~/.local/share") / "hippograph" / name


def _base(variable: str, default: str) -> Path:
    # An empty value counts as unset, as the XDG specification says.
    return Path(os.environ.get(variable) or default).expanduser()
