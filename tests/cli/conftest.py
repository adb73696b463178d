"""CLI tests: small conversation files, and a runtime on the shared embedded ArcadeDB."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from hippograph.settings import Settings
from tests.graphs import TestDatabase


@pytest.fixture
def settings(graph_db: TestDatabase, tmp_path: Path) -> Settings:
    """What ``hippograph import`` reads from the environment, by default."""
    return Settings(graph=graph_db.settings(tmp_path))


# A short trip-planning chat, in (speaker, text) turns: the CLI tests' conversation.
TALK = [
    ("Alice", "We land in Lisbon at noon on Friday."),
    ("Bot", "Noted. Do you need a hotel?"),
    ("Alice", "My name is Alice Moreau and I live in Lyon."),
    ("Alice", "I love painting landscapes; my favourite colour is blue."),
    ("Bot", "Lovely. Anything else for the trip?"),
    ("Alice", "I started learning Portuguese last month for this trip."),
]


def locomo_sample() -> dict[str, Any]:
    """A LoCoMo sample in the file's shape: two sessions, one image turn, one empty session."""
    return {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! Good to see you!"},
                {"speaker": "Melanie", "dia_id": "D1:2", "text": "Hi Caroline! How are you?"},
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:3",
                    "text": "I went to a LGBTQ support group yesterday and it was so powerful.",
                },
                {
                    "speaker": "Melanie",
                    "dia_id": "D1:4",
                    "text": "That is wonderful. I painted a sunrise over the lake last week.",
                },
            ],
            "session_2_date_time": "7:55 pm on 25 May, 2023",
            "session_2": [
                {
                    "speaker": "Melanie",
                    "dia_id": "D2:1",
                    "text": "I ran a charity race for mental health last Saturday.",
                },
                {
                    "speaker": "Caroline",
                    "dia_id": "D2:2",
                    "text": "That's great! Look at this.",
                    "blip_caption": "a photo of a rainbow flag",
                },
                {"speaker": "Melanie", "dia_id": "D2:3", "text": "Love it, so colourful."},
            ],
            "session_3_date_time": "8:00 pm on 1 June, 2023",
            "session_3": [],
        },
        "qa": [],
    }


def write_locomo(path: Path) -> Path:
    """A one-sample LoCoMo file at ``path``."""
    path.write_text(json.dumps([locomo_sample()]))
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    """A JSONL file of ``rows`` (strings are written as they are: blank or broken lines)."""
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


@pytest.fixture
def cli_environment(
    monkeypatch: pytest.MonkeyPatch, graph_db: TestDatabase, tmp_path: Path
) -> None:
    """Settings that reach the test's empty database as a server, as a user's shell would."""
    for name in list(os.environ):
        if name.startswith("HIPPOGRAPH_") and name != "HIPPOGRAPH_EMBEDDING__CACHE_DIR":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no .env file
    for name, value in graph_db.environment(tmp_path / "data").items():
        monkeypatch.setenv(name, value)
