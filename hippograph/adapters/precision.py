"""Which precision the embedding model runs in.

What runs it is ``EmbeddingSettings.effective_runtime``: ONNX Runtime on a
CPU (float32, or int8 when asked), PyTorch on other devices and in bfloat16.
For PyTorch on a CPU with
native bfloat16 instructions (x86 AVX512-BF16 or AMX, Arm's BF16 extension)
MiniLM encodes about three times faster in bfloat16 than in float32, and
its unit vectors stay within cosine 0.9999 of the float32 ones (measured on
the LoCoMo turns, 2026-11-23), so search results do not move.
Elsewhere bfloat16 is emulated and slower than float32, hence ``auto``.
"""

from __future__ import annotations

from pathlib import Path

from hippograph.embedding_settings import Precision

# /proc/cpuinfo flag names (x86 "flags", Arm "Features") of native bfloat16 arithmetic.
_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "bf16"})


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """Every flag a ``/proc/cpuinfo`` text lists for any processor."""
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower() in ("flags", "features"):
            flags.update(value.split())
    return frozenset(flags)


def native_bfloat16(cpuinfo_path: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU does bfloat16 arithmetic in hardware (False when unknown)."""
    try:
        text = cpuinfo_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return bool(cpu_flags(text) & _BF16_FLAGS)


def resolve_precision(
    setting: Precision, runtime: str, device: str, native: bool, onnx_default: str = "float32"
) -> str:
    """The precision to run the model in: ``auto`` picks by runtime, device and hardware.

    ONNX: ``onnx_default``, the model's own (a catalog model declares
    whether its int8 file is as good as float32; an exported local folder is
    float32). PyTorch: bfloat16 on a CPU that has it in hardware, else float32.
    """
    if setting != "auto":
        return setting
    if runtime == "torch" and device == "cpu" and native:
        return "bfloat16"
    return onnx_default if runtime == "onnx" else "float32"
