"""The model's transformer as an ONNX file, exported once and kept in a cache directory.

ONNX Runtime runs MiniLM on a CPU about as fast as PyTorch in bfloat16 for
batches, four times faster for a single query (3 ms against 13, measured
here on 2026-11-23), and exactly: its float32 vectors are PyTorch's float32
vectors. The export needs PyTorch and sentence-transformers, which cost
seconds to import, so it happens once per model, precision and library
version; later starts only read the file. Nothing is downloaded: the export
reads the same local model directory the PyTorch runtime loads.

``int8`` adds dynamic quantisation of the weights (per output channel): twice
the throughput again, at cosine 0.99 to float32 and two points less VECTOR
recall@10 on the LoCoMo dev subset (docs/retrieval.md), so it is opt-in.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import subprocess
import sys
import tempfile
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Any

from hippograph.errors import ConfigError

log = logging.getLogger(__name__)

# Bumped whenever what the export writes changes, so old cache files are not reused.
_FORMAT = "1"
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")


def cache_key(model_dir: Path, precision: str) -> str:
    """A digest of the model's files (names, sizes, times), the precision and the exporters.

    File metadata rather than contents: hashing 90 MB of weights at every
    start would cost more than the export it saves, and an installed model
    directory only changes when a package is reinstalled, which moves mtimes.
    """
    digest = hashlib.sha256()
    for part in (_FORMAT, precision, version("onnxruntime"), version("torch")):
        digest.update(part.encode() + b"\0")
    for path in sorted(p for p in model_dir.rglob("*") if p.is_file()):
        stat = path.stat()
        entry = f"{path.relative_to(model_dir)}:{stat.st_size}:{stat.st_mtime_ns}"
        digest.update(entry.encode() + b"\0")
    return digest.hexdigest()[:16]


def cached_model_path(cache_dir: Path, model_name: str, model_dir: Path, precision: str) -> Path:
    """Where the export of ``model_dir`` in ``precision`` lives in ``cache_dir``."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", model_name).strip("-") or "model"
    return cache_dir / f"{stem}-{precision}-{cache_key(model_dir, precision)}.onnx"


def export_in_child(model_dir: Path, target: Path, precision: str) -> None:
    """Run :func:`export` in a child process, so this one never imports PyTorch.

    PyTorch and sentence-transformers add hundreds of megabytes and several
    hundred thousand objects for the garbage collector to a process that,
    once the file exists, needs neither.
    """
    done = subprocess.run(
        [sys.executable, "-m", __name__, str(model_dir), str(target), precision],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise ConfigError(f"exporting {model_dir} to ONNX failed:\n{tail}")


def export(model_dir: Path, target: Path, precision: str) -> None:
    """Export ``model_dir``'s transformer to ``target``, atomically.

    Only the transformer goes into the file: pooling and normalisation are
    cheap and done by the caller, as sentence-transformers does them.
    """
    import torch

    from hippograph.adapters.torch_encoder import load_model

    model = load_model(str(model_dir), "cpu", "float32")
    transformer: Any = model[0].auto_model
    transformer.eval()
    sample = model.tokenizer(["an example sentence"], return_tensors="pt")
    names = [n for n in INPUT_NAMES if n in sample]

    class _LastHiddenState(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *inputs: Any) -> Any:
            return self.inner(**dict(zip(names, inputs, strict=True))).last_hidden_state

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        plain = Path(scratch) / "float32.onnx"
        axes = {n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]}
        # The TorchScript exporter (deprecated, still in the pinned PyTorch)
        # needs no extra package, unlike the torch.export one; its tracer
        # warnings are about models with data-dependent control flow, which
        # an encoder's forward pass does not have (the agreement with PyTorch
        # is tested: tests/adapters/test_embedder_runtimes.py).
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _LastHiddenState(transformer),
                tuple(sample[n] for n in names),
                str(plain),
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
        written = plain
        if precision == "int8":
            written = Path(scratch) / "int8.onnx"
            config = transformer.config
            _quantize(plain, written, config.num_attention_heads, config.hidden_size)
        # Same directory, so the rename is atomic: a process racing this one
        # either finds no file or a whole one.
        os.replace(written, target)
    log.info("exported %s to %s (%s)", model_dir, target, precision)


def _quantize(source: Path, target: Path, num_heads: int, hidden_size: int) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer

    # Fusing the attention first keeps its score products in float32; only
    # the weight matrices are quantised, per output channel. Per-tensor
    # scales on the plain graph cost MiniLM cosine 0.91 to float32 at worst,
    # this 0.98 (measured on the LoCoMo turns).
    fused = source.with_name("fused.onnx")
    model = optimizer.optimize_model(
        str(source), model_type="bert", num_heads=num_heads, hidden_size=hidden_size, opt_level=1
    )
    model.save_model_to_file(str(fused))
    quantize_dynamic(
        str(fused),
        str(target),
        weight_type=QuantType.QInt8,
        per_channel=True,
        extra_options={"DefaultTensorType": 1},  # FLOAT, where shape inference is silent
    )


if __name__ == "__main__":
    export(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
