"""Which precision the embedding model runs in."""

from __future__ import annotations

from pathlib import Path

from hippograph.adapters.precision import cpu_flags, native_bfloat16, resolve_precision

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


def test_auto_picks_bfloat16_only_on_a_cpu_that_has_it() -> None:
    assert resolve_precision("auto", "cpu", native=True) == "bfloat16"
    assert resolve_precision("auto", "cpu", native=False) == "float32"
    assert resolve_precision("auto", "cuda", native=True) == "float32"
    assert resolve_precision("float32", "cpu", native=True) == "float32"
    assert resolve_precision("bfloat16", "cpu", native=False) == "bfloat16"
