"""Maintenance commands: `reindex` (vector indexes) and `prepare-model` (the ONNX export)."""

from __future__ import annotations

import pytest

from hippograph.cli import main
from tests.conftest import MODEL_CACHE


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


def test_prepare_model_reports_the_runtime_and_the_cache(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The run's shared cache already holds the float32 export: nothing to export.
    monkeypatch.setenv("HIPPOGRAPH_EMBEDDING__CACHE_DIR", str(MODEL_CACHE))
    assert main(["prepare-model"]) == 0
    out = capsys.readouterr().out
    assert f"all-MiniLM-L6-v2: onnx, float32, cached in {MODEL_CACHE}" in out
