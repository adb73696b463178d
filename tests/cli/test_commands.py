"""The `worker` and `import` commands' arguments and refusals (no server started)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hippograph.cli import build_parser, main
from hippograph.cli_args import writable_file
from hippograph.settings import Settings
from jobs.worker import sweep_schedule
from tests.cli.conftest import write_jsonl, write_locomo


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Settings from these tests only: no HIPPOGRAPH_* variables, no .env file."""
    for name in list(os.environ):
        if name.startswith("HIPPOGRAPH_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_the_worker_refuses_the_embedded_graph(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["worker"]) == 2
    error = capsys.readouterr().err
    assert "the worker cannot use the embedded ArcadeDB" in error
    assert "HIPPOGRAPH_GRAPH__SERVER=neo4j" in error
    assert "HIPPOGRAPH_GRAPH__EMBEDDED=false" in error
    assert "HIPPOGRAPH_JOBS__MODE=inprocess" in error


def _a_workers_settings(monkeypatch: pytest.MonkeyPatch, *, mode: str = "arq") -> None:
    """What a worker may start with: a graph server (nothing listens there) and ``mode``."""
    monkeypatch.setenv("HIPPOGRAPH_GRAPH__SERVER", "neo4j")
    monkeypatch.setenv("HIPPOGRAPH_GRAPH__URI", "bolt://127.0.0.1:7687")
    monkeypatch.setenv("HIPPOGRAPH_JOBS__MODE", mode)


def test_the_worker_refuses_in_process_jobs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _a_workers_settings(monkeypatch, mode="inprocess")
    assert main(["worker", "--burst"]) == 2
    assert "Set HIPPOGRAPH_JOBS__MODE=arq" in capsys.readouterr().err


def test_the_worker_never_prints_the_redis_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _a_workers_settings(monkeypatch)
    # Nothing listens on port 1: the worker fails to reach Redis and says where.
    monkeypatch.setenv("HIPPOGRAPH_REDIS__URL", "redis://:TopSecretPw@127.0.0.1:1/0")
    monkeypatch.setenv("HIPPOGRAPH_REDIS__TIMEOUT_S", "0.5")
    assert main(["worker", "--burst"]) == 2
    said = capsys.readouterr()
    assert "Redis at redis://:***@127.0.0.1:1/0 failed" in said.err
    assert "TopSecretPw" not in said.err + said.out


@pytest.mark.parametrize(
    ("interval", "fields"),
    [
        (900, (None, {0, 15, 30, 45})),
        (7200, (set(range(0, 24, 2)), {0})),
        (86400, ({0}, {0})),
    ],
)
def test_the_workers_sweep_keeps_its_interval(
    interval: float, fields: tuple[set[int] | None, set[int]]
) -> None:
    assert sweep_schedule(interval) == fields


def test_the_worker_refuses_a_sweep_interval_cron_cannot_keep(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _a_workers_settings(monkeypatch)
    # Every 7 minutes would be :00, :07 … :56, then :00 again four minutes on.
    monkeypatch.setenv("HIPPOGRAPH_REFLECTION__SWEEP_INTERVAL_S", "420")
    assert main(["worker", "--burst"]) == 2
    assert "SWEEP_INTERVAL_S=420: the worker runs the sweep by cron" in capsys.readouterr().err


def test_worker_and_import_arguments() -> None:
    parser = build_parser()
    assert parser.parse_args(["worker"]).burst is False
    assert parser.parse_args(["worker", "--burst"]).burst is True
    args = parser.parse_args(["import", "chats.jsonl", "--format", "jsonl", "--no-progress"])
    assert (args.file, args.format, args.no_progress) == (Path("chats.jsonl"), "jsonl", True)
    assert parser.parse_args(["import", "x.json"]).format == "auto"


def test_import_refuses_a_bad_file_before_starting_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "chats.jsonl", [{"user_id": "alice", "messages": []}])
    assert main(["import", str(path)]) == 2
    assert (
        "chats.jsonl line 1: messages: List should have at least 1 item" in capsys.readouterr().err
    )
    assert main(["import", str(tmp_path / "missing.jsonl")]) == 2
    assert f"hippograph: {tmp_path / 'missing.jsonl'} does not exist" in capsys.readouterr().err
    assert main(["import", str(tmp_path)]) == 2
    assert f"hippograph: {tmp_path} is a directory, not a file" in capsys.readouterr().err


def test_import_refuses_an_unknown_conversation_and_a_user_for_two_speakers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_locomo(tmp_path / "locomo.json")
    assert main(["import", str(path), "--only", "conv-9"]) == 2
    assert "locomo.json has no conversation 'conv-9' (it has conv-1)" in capsys.readouterr().err
    assert main(["import", str(path), "--only", "conv-1", "--user", "jon"]) == 2
    assert "has 2 speakers, each filed under a user of their own" in capsys.readouterr().err
    chat = tmp_path / "chat.json"
    chat.write_text('[{"role": "user", "content": "I moved to Lisbon."}]')
    assert main(["import", str(chat)]) == 2
    assert "names no user: say whose they are with --user" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("HIPPOGRAPH_API__PORT", "eighty"),
        ("HIPPOGRAPH_API__RATE_LIMIT_PER_S", "-5"),
        ("HIPPOGRAPH_JOBS__METRICS_PORT", "70000"),
        ("HIPPOGRAPH_LOG_FORMAT", "xml"),
        ("HIPPOGRAPH_GRAPH__UNAVAILABLE_RETRY_S", "-1"),
        ("HIPPOGRAPH_REFLECTION__KINDS", '["semntic"]'),
        ("HIPPOGRAPH_REFLECTION__KINDS", "[]"),
        ("HIPPOGRAPH_GRAPH__HEAP", "lots"),
        ("HIPPOGRAPH_GRAPH__URI", "notauri"),
        ("HIPPOGRAPH_GRAPH__URI", "http://127.0.0.1:7474"),
        ("HIPPOGRAPH_GRAPH__URI", "bolt://127.0.0.1:port"),
        ("HIPPOGRAPH_REDIS__URL", "localhost:6379"),
        ("HIPPOGRAPH_REDIS__URL", "redis://h:notaport/0"),
        ("HIPPOGRAPH_REDIS__URL", "redis:///0"),
        ("HIPPOGRAPH_EMBEDDING__DEVICE", "bogus"),
        # Below what a search asks for by default: every such search would fail.
        ("HIPPOGRAPH_LIMITS__MAX_CANDIDATES", "20"),
        ("HIPPOGRAPH_LIMITS__MAX_TOP_K", "5"),
        # /explore walks four steps: a lower cap would fail it for every memory.
        ("HIPPOGRAPH_LIMITS__MAX_PROVENANCE_DEPTH", "3"),
    ],
)
def test_a_bad_setting_stops_every_command_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit, match=f"invalid configuration: {variable}"):
        main(["export-schema", "--output", "-"])


def test_a_misspelt_setting_is_warned_about_and_the_command_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HIPPOGRAPH_LOG_FORMAT", "text")
    monkeypatch.setenv("HIPPOGRAPH_GRAPH__SERVRE", "neo4j")
    (tmp_path / ".env").write_text("HIPPOGRAPH_API__PROT=9000\n")
    assert main(["export-schema", "--output", "-"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith('"""')
    assert "SERVRE" not in out
    warnings = [line.split(": ", 1)[1] for line in err.splitlines() if "WARNING" in line]
    assert warnings == [
        "HIPPOGRAPH_API__PROT is set but names no setting, so it changes nothing "
        "(did you mean HIPPOGRAPH_API__PORT?)",
        "HIPPOGRAPH_GRAPH__SERVRE is set but names no setting, so it changes nothing "
        "(did you mean HIPPOGRAPH_GRAPH__SERVER?)",
    ]


def test_help_says_what_it_is_in_whole_sentences(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    description = " ".join(out.split("\n\n")[1].split())
    assert description.startswith("HippoGraph: long-term memory for LLM agents")
    assert description.endswith(".")


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--port", "70000"],
        ["serve", "--port", "-1"],
        ["reindex", "--model", "e5-small-v2", "--page", "0"],
        ["reindex", "--model", "e5-small-v2", "--page", "-3"],
    ],
)
def test_out_of_range_arguments_are_refused_before_anything_starts(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert "is not" in capsys.readouterr().err


def test_a_list_setting_that_is_not_json_is_a_message_naming_the_form(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HIPPOGRAPH_API__TRUSTED_PROXIES", "10.0.0.1")
    with pytest.raises(SystemExit, match=r"invalid configuration: .*given as JSON"):
        main(["export-schema", "--output", "-"])


def test_serve_refuses_arq_jobs_on_the_embedded_graph(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Accepted, its jobs would wait on Redis for a worker that refuses to start.
    monkeypatch.setenv("HIPPOGRAPH_JOBS__MODE", "arq")
    assert main(["serve", "--port", "0"]) == 2
    error = capsys.readouterr().err
    assert "HIPPOGRAPH_JOBS__MODE=arq needs a graph server" in error
    assert "HIPPOGRAPH_JOBS__MODE=inprocess" in error


def test_reflection_kinds_are_read_as_stored_whatever_their_case(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HIPPOGRAPH_REFLECTION__KINDS", '["SEMANTIC", "Profile"]')
    assert Settings().reflection.kinds == ["semantic", "profile"]


def test_an_output_that_cannot_be_written_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere" / "schema.graphql"
    assert main(["export-schema", "--output", str(missing)]) == 2
    assert f"cannot write {missing}: the folder" in capsys.readouterr().err
    assert main(["export-schema", "--output", str(tmp_path)]) == 2
    assert "it is a folder" in capsys.readouterr().err
    writable_file("-")
    writable_file(str(tmp_path / "fine.jsonl"))
