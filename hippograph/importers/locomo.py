"""The LoCoMo benchmark's file format, read into plain records.

Only the raw conversation is read (speakers, session dates, turns, image
captions) and the questions with their evidence; the file's observations and
summaries are never used to build memories.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippograph.models import Role
from hippograph.services.messages import MessageInput

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION = re.compile(r"^session_(\d+)$")
_DIA = re.compile(r"^D:?(\d+):(\d+)$")


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn: who said what (image turns: the text and what was shared)."""

    dia_id: str
    speaker: str
    text: str


@dataclass(frozen=True, slots=True)
class LocomoSession:
    """One session: when it happened and its turns in order."""

    number: int
    started_at: datetime
    turns: tuple[Turn, ...]

    def message_inputs(self) -> list[MessageInput]:
        """The turns as messages: stamped with the session's date, the dia_id as client id."""
        return [
            MessageInput(
                speaker=t.speaker,
                content=t.text,
                role=Role.USER,
                ts=self.started_at,
                client_id=t.dia_id,
            )
            for t in self.turns
        ]


@dataclass(frozen=True, slots=True)
class Question:
    """A benchmark question and the turns that hold its answer.

    ``raw_evidence`` is the file's list as written; ``unparsed`` the parts of
    it that name no turn of the conversation (malformed, or a turn that is
    not there). A question whose evidence is all unparsed cannot be scored.
    """

    question: str
    category: str
    evidence: tuple[str, ...]
    raw_evidence: tuple[str, ...] = ()
    unparsed: tuple[str, ...] = ()

    @property
    def scorable(self) -> bool:
        """False when the file gave evidence but none of it names a turn."""
        return bool(self.evidence) or not self.raw_evidence


@dataclass(frozen=True, slots=True)
class Conversation:
    """One LoCoMo sample."""

    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[LocomoSession, ...]
    questions: tuple[Question, ...]


def parse_session_date(value: str) -> datetime:
    """LoCoMo's "1:56 pm on 8 May, 2023" as an aware UTC datetime."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turn_text(raw: dict[str, Any]) -> str:
    """A turn's text; an image turn adds "and shared <blip_caption>"."""
    text = str(raw.get("text", "")).strip()
    caption = raw.get("blip_caption")
    return f"{text} and shared {caption}" if caption else text


def read_evidence(raw: list[Any], known: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The turns the evidence names, and the parts of it that name none.

    Evidence ids as the official evaluation reads them: malformed strings are
    repaired where they can be parsed ("D8:6; D9:17", "D:11:26", "D30:05");
    what names no turn of the conversation is returned apart, to be counted.
    """
    found: list[str] = []
    unparsed: list[str] = []
    for item in raw:
        for part in re.split(r"[;,\s]+", str(item)):
            if not part.strip():
                continue
            match = _DIA.match(part.strip())
            dia = f"D{int(match[1])}:{int(match[2])}" if match else None
            if dia is None or dia not in known:
                unparsed.append(part.strip())
            elif dia not in found:
                found.append(dia)
    return tuple(found), tuple(unparsed)


def parse_sample(sample: dict[str, Any]) -> Conversation:
    """One sample of the file."""
    conversation = sample["conversation"]
    sessions = []
    for key in conversation:
        match = _SESSION.match(key)
        if not match or not conversation[key]:
            continue
        number = int(match[1])
        turns = tuple(
            Turn(dia_id=t["dia_id"], speaker=t["speaker"], text=turn_text(t))
            for t in conversation[key]
            if turn_text(t)
        )
        started = parse_session_date(conversation[f"session_{number}_date_time"])
        sessions.append(LocomoSession(number=number, started_at=started, turns=turns))
    sessions.sort(key=lambda s: s.number)
    known = {t.dia_id for s in sessions for t in s.turns}
    questions = []
    for q in sample.get("qa", []):
        raw = [str(e) for e in q.get("evidence") or []]
        evidence, unparsed = read_evidence(raw, known)
        questions.append(
            Question(
                question=q["question"],
                category=CATEGORIES.get(int(q.get("category", 0)), "unknown"),
                evidence=evidence,
                raw_evidence=tuple(raw),
                unparsed=unparsed,
            )
        )
    speakers = (conversation["speaker_a"], conversation["speaker_b"])
    return Conversation(sample["sample_id"], speakers, tuple(sessions), tuple(questions))


def load_locomo(path: Path) -> list[Conversation]:
    """Every sample of a LoCoMo-format file."""
    data = json.loads(path.read_text())
    if not isinstance(data, list):
        raise ValueError(f"{path} is not a LoCoMo file: expected a list of samples")
    return [parse_sample(sample) for sample in data]
