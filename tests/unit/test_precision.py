"""Which precision the embedding model runs in."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from hippograph.adapters.embedder import model_cache_dir
from hippograph.adapters.precision import (
    cpu_flags,
    native_bfloat16,
    resolve_precision,
)
from hippograph.settings import EmbeddingSettings, GraphSettings, Settings

X86 = """processor\t: 0
flags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni
processor\t: 1
flags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni
"""
OLD_X86 = "processor\t: 0\nflags\t\t: fpu sse2 avx2 fma\n"
ARM = "processor\t: 0\nFeatures\t: fp asimd evtstrm aes bf16 i8mm\n"


def test_flags_are_read_from_x86_and_arm_cpuinfo() -> None:
    assert {"avx512_bf16", "avx2"} <= cpu_flags(X86)
    assert "bf16" in cpu_flags(ARM)
    assert cpu_flags("") == frozenset()


def test_native_bfloat16_needs_the_instructions(tmp_path: Path) -> None:
    for text, expected in ((X86, True), (ARM, True), (OLD_X86, False)):
        path = tmp_path / "cpuinfo"
        path.write_text(text)
        assert native_bfloat16(path) is expected
    assert native_bfloat16(tmp_path / "missing") is False


def test_auto_runtime_is_onnx_on_the_cpu_and_torch_elsewhere() -> None:
    assert EmbeddingSettings().effective_runtime == "onnx"
    assert EmbeddingSettings(precision="int8").effective_runtime == "onnx"
    assert EmbeddingSettings(device="cuda").effective_runtime == "torch"
    assert EmbeddingSettings(runtime="torch").effective_runtime == "torch"


def test_asking_for_bfloat16_picks_torch() -> None:
    assert EmbeddingSettings(precision="bfloat16").effective_runtime == "torch"


def test_auto_precision_is_float32_on_onnx_whatever_the_cpu() -> None:
    # int8 costs retrieval quality, so it is never picked for the user.
    assert resolve_precision("auto", "onnx", "cpu", native=True) == "float32"
    assert resolve_precision("int8", "onnx", "cpu", native=False) == "int8"


def test_auto_picks_bfloat16_on_torch_only_on_a_cpu_that_has_it() -> None:
    assert resolve_precision("auto", "torch", "cpu", native=True) == "bfloat16"
    assert resolve_precision("auto", "torch", "cpu", native=False) == "float32"
    assert resolve_precision("auto", "torch", "cuda", native=True) == "float32"
    assert resolve_precision("float32", "torch", "cpu", native=True) == "float32"
    assert resolve_precision("bfloat16", "torch", "cpu", native=False) == "bfloat16"


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"runtime": "onnx", "precision": "bfloat16"}, "RUNTIME=torch"),
        ({"runtime": "torch", "precision": "int8"}, "PRECISION=int8"),
        ({"runtime": "onnx", "device": "cuda"}, "RUNTIME=onnx"),
        ({"device": "cuda", "precision": "int8"}, "PRECISION=int8"),
    ],
)
def test_impossible_runtime_and_precision_pairs_are_refused(
    settings: dict[str, str], named: str
) -> None:
    with pytest.raises(ValidationError, match=named):
        EmbeddingSettings(**settings)


def test_the_model_cache_is_the_users_unless_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HIPPOGRAPH_EMBEDDING__CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    settings = Settings(graph=GraphSettings(data_dir=tmp_path / "data"))
    assert model_cache_dir(settings.embedding) == tmp_path / "xdg" / "hippograph" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert model_cache_dir(EmbeddingSettings()) == tmp_path / "home/.cache/hippograph/models"
    chosen = EmbeddingSettings(cache_dir=Path("~/models"))
    assert model_cache_dir(chosen) == tmp_path / "home" / "models"
