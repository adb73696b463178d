"""`hippograph bench locomo` scores only what it can, and says what it could not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hippograph.benchmark.locomo import question_counts
from hippograph.importers.locomo import parse_sample
from tests.cli.conftest import locomo_sample

QUESTIONS = [
    {"question": "Where did Caroline go?", "evidence": ["D1:3"], "category": 4},
    {"question": "What did Melanie paint?", "evidence": ["D1:4; D:2:1"], "category": 1},
    {"question": "What race did Melanie run?", "evidence": ["D2:1", "D7:40"], "category": 2},
    {"question": "What did nobody say?", "evidence": [], "category": 5},
    {"question": "What is unparseable?", "evidence": ["turn four"], "category": 4},
    {"question": "What names no turn?", "evidence": ["D9:9"], "category": 3},
]


def _sample() -> dict[str, Any]:
    sample = locomo_sample()
    sample["qa"] = QUESTIONS
    return sample


def test_evidence_that_names_no_turn_is_counted_not_scored() -> None:
    conversation = parse_sample(_sample())
    questions = {q.question: q for q in conversation.questions}
    assert questions["What did Melanie paint?"].evidence == ("D1:4", "D2:1")
    partly = questions["What race did Melanie run?"]
    assert (partly.evidence, partly.unparsed, partly.scorable) == (("D2:1",), ("D7:40",), True)
    assert questions["What did nobody say?"].scorable  # no evidence: the official rule, 1
    for name in ("What is unparseable?", "What names no turn?"):
        assert not questions[name].scorable
        assert questions[name].evidence == ()
    counts = question_counts([conversation])
    assert counts == {
        "total": 6,
        "scored": 4,
        "no_evidence_scored_as_1": 1,
        "unscorable": 2,
        "partly_unparsed": 1,
        "by_category": {
            "adversarial": {"questions": 1, "scored": 1},
            "multi-hop": {"questions": 1, "scored": 1},
            "open-domain": {"questions": 1, "scored": 0},
            "single-hop": {"questions": 2, "scored": 1},
            "temporal": {"questions": 1, "scored": 1},
        },
    }


@pytest.mark.slow  # the bench as a child process (19 s here)
def test_the_bench_reports_counts_and_writes_every_question(tmp_path: Path) -> None:
    # As a user runs it: its own process, its own fresh embedded store.
    rows = tmp_path / "questions.jsonl"
    report = _bench(
        tmp_path, "--method", "keyword,hybrid", "--k", "1,5", "--json", "--per-question", str(rows)
    )
    assert report["question_counts"]["unscorable"] == 2
    assert set(report["hybrid"]["by_category"]) == {
        "adversarial",
        "multi-hop",
        "single-hop",
        "temporal",
    }  # open-domain has no scorable question: no recall is made up for it
    # The question without evidence scores 1; with evidence nothing is free.
    assert report["hybrid"]["by_category"]["adversarial"]["recall@1"] == 1.0
    lines = [json.loads(line) for line in rows.read_text().splitlines()]
    assert len(lines) == len(QUESTIONS) * 2
    unscorable = [line for line in lines if not line["scored"]]
    assert len(unscorable) == 4
    assert all(line["recall"] is None for line in unscorable)
    first = next(line for line in lines if line["question"] == "Where did Caroline go?")
    assert first["evidence"] == ["D1:3"]
    assert first["retrieved"]
    assert all(isinstance(turns, list) for turns in first["retrieved"])


@pytest.mark.slow  # the bench as a child process
def test_the_bench_ranks_memunits_too(tmp_path: Path) -> None:
    report = _bench(
        tmp_path, "--method", "hybrid", "--granularity", "memunit", "--k", "1", "--json"
    )
    assert "recall@1" in report["hybrid"]["overall"]


def _bench(tmp_path: Path, *arguments: str) -> Any:
    """``hippograph bench locomo`` on the tiny sample, as a user runs it: its JSON report."""
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([_sample()]))
    hippograph = Path(sys.executable).parent / "hippograph"
    done = subprocess.run(
        [str(hippograph), "bench", "locomo", "--data", str(data), *arguments],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)
