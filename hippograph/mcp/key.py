"""The key ``hippograph mcp`` acts as, read before anything heavy is imported or started,
so a client configured without one hears why at once."""

from __future__ import annotations

import os
from pathlib import Path

KEY_ENV = "HIPPOGRAPH_API_KEY"


class StartRefused(Exception):
    """Why ``hippograph mcp`` will not serve (printed, exit status 2)."""


def read_key(key_file: Path | None) -> str:
    """The API key: from ``key_file`` when given, else ``$HIPPOGRAPH_API_KEY``."""
    if key_file is not None:
        try:
            key = key_file.read_text().strip()
        except OSError as exc:
            raise StartRefused(f"cannot read the key file {key_file}: {exc.strerror}") from exc
        if not key:
            raise StartRefused(f"the key file {key_file} is empty")
        return key
    key = os.environ.get(KEY_ENV, "").strip()
    if not key:
        raise StartRefused(
            f"no API key: set {KEY_ENV} (or pass --key-file) to the key the client acts as"
        )
    return key
