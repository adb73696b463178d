"""Every runtime and precision encodes the same texts to (nearly) the same float32 unit vectors.

MiniLM runs three ways: its jar's ONNX file (the catalog's), PyTorch through
sentence-transformers (the PyPI package's folder), and a local folder's ONNX
export. The export is cached: a second load reads the file, and a damaged
file is exported again instead of stopping the start.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest

from hippograph.adapters.embedder import SentenceTransformerEmbedder, resolve_model_path
from hippograph.adapters.onnx_encoder import pooling_mode
from hippograph.adapters.onnx_export import cached_model_path
from hippograph.errors import ConfigError
from hippograph.settings import EmbeddingSettings
from tests.conftest import MODEL_CACHE

TEXTS = [
    'Caroline said, "I went to the LGBTQ support group yesterday and it was so powerful."',
    "Melanie painted a sunrise over the lake last year.",
    "我喜欢喝咖啡",
    "ok",
    "",
    " ".join(["a very long turn that goes on"] * 80),  # past max_seq_length: truncated
]


async def _vectors(settings: EmbeddingSettings) -> tuple[str, str, list[list[float]]]:
    embedder = await SentenceTransformerEmbedder.load(settings)
    try:
        return embedder.runtime, embedder.precision, await embedder.embed(TEXTS)
    finally:
        await embedder.close()


def _cosines(a: list[list[float]], b: list[list[float]]) -> list[float]:
    return [math.fsum(x * y for x, y in zip(u, v, strict=True)) for u, v in zip(a, b, strict=True)]


def _are_unit_float32_rows(rows: list[list[float]]) -> bool:
    return all(
        len(row) == 384
        and all(isinstance(x, float) for x in row)
        and math.isclose(math.fsum(x * x for x in row), 1.0, abs_tol=1e-5)
        for row in rows
    )


MINILM = "all-minilm-l6-v2"


def _packaged_folder() -> Path:
    """MiniLM's sentence-transformers folder, as a local model folder."""
    return Path(resolve_model_path(MINILM))


@pytest.mark.slow  # loads every runtime (31 s here)
async def test_every_runtime_and_precision_agrees_with_torch_float32() -> None:
    reference = await _vectors(
        EmbeddingSettings(model=MINILM, runtime="torch", precision="float32")
    )
    assert reference[:2] == ("torch", "float32")
    # Worst cosine to PyTorch float32: over the sentences, and over everything
    # (two-letter and empty texts are where int8 strays most: 0.944 for "ok").
    expected = {
        # The jar's file, another export of the same weights: PyTorch's vectors
        # to 3e-7 (the truncation at 256 tokens included).
        ("onnx", "float32"): (0.99999, 0.99999),
        # Measured at least 0.9999 on the LoCoMo turns.
        ("torch", "bfloat16"): (0.999, 0.999),
        # The jar's int8 file (quantised upstream).
        ("onnx", "int8"): (0.98, 0.93),
    }
    for (runtime, precision), (sentences, anything) in expected.items():
        settings = EmbeddingSettings(
            model=MINILM,
            runtime=runtime,
            precision=precision,
            cache_dir=MODEL_CACHE,
        )
        ran, computed, rows = await _vectors(settings)
        assert (ran, computed) == (runtime, precision)
        assert _are_unit_float32_rows(rows)
        cosines = _cosines(reference[2], rows)
        assert min(cosines[:3]) > sentences, (runtime, precision, cosines)
        assert min(cosines) > anything, (runtime, precision, cosines)


async def test_auto_runs_a_catalog_model_in_onnx_at_its_own_precision_on_the_cpu() -> None:
    runtime, precision, rows = await _vectors(EmbeddingSettings())
    assert (runtime, precision) == ("onnx", "int8")
    assert _are_unit_float32_rows(rows)
    runtime, precision, rows = await _vectors(EmbeddingSettings(model=MINILM))
    assert (runtime, precision) == ("onnx", "float32")


@pytest.mark.slow  # exports the model twice (22 s here)
async def test_the_export_of_a_local_folder_is_made_once_and_remade_when_damaged(
    tmp_path: Path,
) -> None:
    model_dir = _packaged_folder()
    settings = EmbeddingSettings(model=str(model_dir), cache_dir=tmp_path)
    cached = cached_model_path(tmp_path, settings.model, model_dir, "float32")
    first = await _vectors(settings)
    assert cached.exists()
    made = cached.stat().st_mtime_ns
    second = await _vectors(settings)
    assert cached.stat().st_mtime_ns == made  # read, not exported again
    assert first[2] == second[2]
    cached.write_bytes(b"not an onnx model")
    third = await _vectors(settings)
    assert cached.stat().st_size > 1_000_000
    assert min(_cosines(first[2], third[2])) > 0.99999
    assert sorted(os.listdir(tmp_path)) == [cached.name]  # no scratch left behind


def test_a_model_pooled_some_other_way_is_refused_with_the_setting_to_change(
    tmp_path: Path,
) -> None:
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "modules.json").write_text(
        json.dumps([{"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])
    )
    config = {"pooling_mode_mean_tokens": False, "pooling_mode_lasttoken": True}
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ConfigError, match="RUNTIME=torch"):
        pooling_mode(tmp_path)
    (tmp_path / "modules.json").write_text("[]")
    with pytest.raises(ConfigError, match="RUNTIME=torch"):
        pooling_mode(tmp_path)
    assert pooling_mode(_packaged_folder()) == "mean"


@pytest.mark.slow  # an export child process (7 s here)
async def test_a_model_that_cannot_be_exported_fails_the_start_with_the_reason(
    tmp_path: Path,
) -> None:
    # Every file of the packaged model but its weights.
    packaged = _packaged_folder()
    broken = tmp_path / "model"
    shutil.copytree(packaged, broken, ignore=shutil.ignore_patterns("*.safetensors"))
    settings = EmbeddingSettings(model=str(broken), cache_dir=tmp_path / "cache")
    with pytest.raises(ConfigError, match=r"exporting .* to ONNX failed"):
        await SentenceTransformerEmbedder.load(settings)
    assert not list((tmp_path / "cache").glob("*.onnx"))
